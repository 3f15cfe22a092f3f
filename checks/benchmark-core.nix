# checks.<system>.benchmark-core: runs the packaged benchcore through
# checks/benchmark-core.sh against the committed three-arm and two-arm
# fixture runs (the script compares each results.json with the committed
# expected file and asserts on the pages; CI runs the same script with the
# work tree's benchcore).
{
  lib,
  runCommandLocal,
  python3,
  benchcore,
}:
let
  src = lib.fileset.toSource {
    root = ../.;
    fileset = lib.fileset.unions [
      ./benchmark-core.sh
      ./fixtures/benchmark-core
    ];
  };
in
runCommandLocal "check-benchmark-core" { } ''
  cp -R ${src} work
  chmod -R u+w work
  BENCHCORE=${lib.getExe benchcore} PYTHON=${lib.getExe python3} bash work/checks/benchmark-core.sh
  touch "$out"
''
