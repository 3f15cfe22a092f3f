# checks.<system>.benchmark-core: runs the packaged benchcore through
# checks/benchmark-core.sh against the committed three-arm and two-arm
# fixture runs (the script compares with the committed expected results;
# CI runs the same script with benchcore from the work tree).
{
  lib,
  runCommandLocal,
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
  cd work
  BENCHCORE=${lib.getExe benchcore} bash checks/benchmark-core.sh
  touch "$out"
''
