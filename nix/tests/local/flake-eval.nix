# Evaluates this flake's outputs on a machine without nixpkgs, for review
# (not CI: CI cannot fetch these sources). It calls flake.nix's `outputs`
# with:
#   - the real nixpkgs library (a nix-community/nixpkgs.lib checkout),
#   - home-manager's real home.file machinery (modules/files.nix,
#     modules/misc/lib.nix and its lib extension from a home-manager
#     checkout), standing in for homeManagerConfiguration,
#   - stand-ins for the nixpkgs builders the flake calls (runCommandLocal,
#     mkShell, buildPythonApplication ...): they record their arguments
#     instead of building. A skill package is the skill folder added to the
#     store under the package's own name (no bin/ links).
# So it checks the wiring, the library, the module against home-manager's
# option types and its home-files script; not nixpkgs' builders themselves.
#
#   bash nix/tests/local/run.sh <nixpkgs.lib checkout> <home-manager checkout>
{
  nixpkgsLib,
  homeManager,
  system ? "x86_64-linux",
}:
let
  realLib = import (nixpkgsLib + "/lib");
  # lib.pathIsDirectory (which programs.claude-code calls on each skill)
  # needs builtins.readFileType, new in Nix 2.14; on an older Nix (Debian's
  # 2.8) the same answer comes from readDir of the parent folder.
  lib =
    if builtins ? readFileType then
      realLib
    else
      realLib.extend (
        _: _: {
          pathIsDirectory =
            p:
            let
              s = builtins.unsafeDiscardStringContext (toString p);
            in
            builtins.pathExists s && ((builtins.readDir (dirOf s)).${baseNameOf s} or null) == "directory";
        }
      );
  hmLib = import (homeManager + "/modules/lib/stdlib-extended.nix") lib;

  fakeDrv =
    name: attrs:
    attrs
    // {
      type = "derivation";
      inherit name;
      outPath = attrs.outPath or "/nix/store/${builtins.substring 0 32 (builtins.hashString "sha256" name)}-${name}";
    };

  pkgs = lib.fix (self: {
    inherit lib;
    pkgs = self;
    callPackage = lib.callPackageWith self;
    python3 = fakeDrv "python3" { meta.mainProgram = "python3"; };
    stdenv.hostPlatform = {
      inherit system;
      isLinux = lib.hasSuffix "-linux" system;
    };
    runtimeShell = "bash";
    runCommandLocal =
      name: env: script:
      if lib.hasPrefix "claude-skill-" name && env ? src then
        fakeDrv name (
          env
          // {
            inherit script;
            outPath = builtins.path {
              path = env.src;
              inherit name;
            };
          }
        )
      else
        fakeDrv name (env // { inherit script; });
    linkFarm = name: entries: fakeDrv name { inherit entries; };
    mkShell = attrs: fakeDrv (attrs.name or "nix-shell") attrs;
    writeText = name: text: builtins.toFile name text;
    writeTextFile = a: fakeDrv a.name a;
    writeShellScript = name: text: fakeDrv name { inherit text; };
    replaceVars = src: vars: fakeDrv "replaced" { inherit src; };
    gitMinimal = fakeDrv "git-minimal" { meta.mainProgram = "git"; };
    bubblewrap = fakeDrv "bubblewrap" { meta.mainProgram = "bwrap"; };
    lndir = fakeDrv "lndir" { };
    makeWrapper = fakeDrv "make-wrapper-hook" { };
    nixfmt-tree = fakeDrv "nixfmt-tree" { meta.mainProgram = "treefmt"; };
    claude-code = fakeDrv "claude-code" { meta.mainProgram = "claude"; };
    bash = fakeDrv "bash" { };
    symlinkJoin = a: fakeDrv a.name a;
    formats.json = _: {
      type = lib.types.attrsOf lib.types.anything;
      generate = name: value: builtins.toFile name (builtins.toJSON value);
    };
    python3Packages = {
      buildPythonApplication = attrs: fakeDrv "${attrs.pname}-${attrs.version}" attrs;
      setuptools = fakeDrv "setuptools" { };
      attrs = fakeDrv "attrs" { };
      cattrs = fakeDrv "cattrs" { };
      pyyaml = fakeDrv "pyyaml" { };
      jinja2 = fakeDrv "jinja2" { };
      markupsafe = fakeDrv "markupsafe" { };
      msgspec = fakeDrv "msgspec" { };
      ahocorasick-rs = fakeDrv "ahocorasick-rs" { };
      pytestCheckHook = fakeDrv "pytest-check-hook" { };
    };
  });

  # home-manager's homeManagerConfiguration, reduced to its home.file part:
  # the user's modules plus home-manager's own files.nix, misc/lib.nix and
  # programs/claude-code.nix (the module this flake's module works with).
  # Like home-manager, it refuses a configuration with a failed assertion.
  homeManagerConfiguration =
    { pkgs, modules, ... }:
    let
      raw = hmLib.evalModules {
        class = "homeManager";
        modules = modules ++ [
          (homeManager + "/modules/files.nix")
          (homeManager + "/modules/misc/lib.nix")
          (homeManager + "/modules/programs/claude-code.nix")
          (
            { lib, ... }:
            {
              options.meta = lib.mkOption {
                type = lib.types.attrsOf lib.types.unspecified;
                default = { };
              };
              # Declared as nixpkgs' nixos/modules/misc/assertions.nix does.
              options.assertions = lib.mkOption {
                type = lib.types.listOf lib.types.unspecified;
                default = [ ];
              };
              options.warnings = lib.mkOption {
                type = lib.types.listOf lib.types.str;
                default = [ ];
              };
              options.home = {
                username = lib.mkOption { type = lib.types.str; };
                homeDirectory = lib.mkOption { type = lib.types.path; };
                stateVersion = lib.mkOption { type = lib.types.str; };
                activation = lib.mkOption {
                  type = lib.types.attrsOf lib.types.unspecified;
                  default = { };
                };
                packages = lib.mkOption {
                  type = lib.types.listOf lib.types.package;
                  default = [ ];
                };
                sessionVariables = lib.mkOption {
                  type = lib.types.attrsOf lib.types.str;
                  default = { };
                };
              };
              config._module.args.pkgs = lib.mkDefault pkgs;
              config.lib = hmLib.hm // {
                bash.initHomeManagerLib = "";
              };
            }
          )
        ];
      };
      failed = map (a: a.message) (lib.filter (a: !a.assertion) raw.config.assertions);
      module =
        if failed == [ ] then raw else throw "\nFailed assertions:\n${lib.concatMapStrings (m: "- ${m}\n") failed}";
    in
    {
      inherit (module) config;
      activationPackage = module.config.home-files;
      inherit raw;
    };

  self = flake.outputs (inputs // { inherit self; });
  flake = import ../../../flake.nix;
  inputs = {
    nixpkgs = {
      inherit lib;
      legacyPackages = lib.genAttrs [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ] (_: pkgs);
    };
    home-manager = {
      outPath = homeManager;
      lib = {
        inherit homeManagerConfiguration;
      };
    };
  };

  # A home configuration using the module with the given programs.claude-skills settings.
  homeWith =
    settings:
    homeManagerConfiguration {
      inherit pkgs;
      modules = [
        self.homeManagerModules.default
        {
          home = {
            username = "check";
            homeDirectory = "/home/check";
            stateVersion = "26.05";
          };
          programs.claude-skills = { enable = true; } // settings;
        }
      ];
    };
  mkHome = skills: homeWith { inherit skills; };

  # The same, beside home-manager's programs.claude-code (enabled, with the
  # given settings; package = null: nothing to build).
  homeWithClaudeCode =
    ccSettings: settings:
    homeManagerConfiguration {
      inherit pkgs;
      modules = [
        self.homeManagerModules.default
        {
          home = {
            username = "check";
            homeDirectory = "/home/check";
            stateVersion = "26.05";
          };
          programs.claude-skills = {
            enable = true;
          }
          // settings;
          programs.claude-code = {
            enable = true;
            package = null;
          }
          // ccSettings;
        }
      ];
    };
  failedMessages = home: map (a: a.message) (lib.filter (a: !a.assertion) home.raw.config.assertions);
  refused = home: !(builtins.tryEval (builtins.deepSeq home.activationPackage.script true)).success;

  skillNames = lib.attrNames (mkHome "all").config.programs.claude-skills.availableSkills;
  chosen = if lib.length skillNames > 1 then lib.init skillNames else skillNames;
  unknownHome = mkHome [ "no-such-skill" ];
in
{
  # Output attribute names, as `nix flake show` would list them.
  outputs = lib.mapAttrs (
    name: value:
    if lib.elem name [
      "homeManagerModules"
      "homeModules"
    ] then
      lib.attrNames value
    else
      lib.mapAttrs (_: lib.attrNames) value
  ) self;

  inputNames = lib.attrNames flake.inputs;

  packageNames = lib.attrNames self.packages.${system};
  skillsFolder = map (e: e.name) self.packages.${system}.skills.entries;
  benchcore = {
    inherit (self.packages.${system}.benchcore)
      pname
      version
      pyproject
      pythonImportsCheck
      preCheck
      ;
    nativeCheckInputs = map (d: d.name) self.packages.${system}.benchcore.nativeCheckInputs;
    wrapperPath = self.packages.${system}.benchcore.makeWrapperArgs;
    mainProgram = self.packages.${system}.benchcore.meta.mainProgram;
    exe = lib.getExe self.packages.${system}.benchcore;
    dependencies = map (d: d.name) self.packages.${system}.benchcore.dependencies;
    # src (lib.fileset.toSource) needs builtins.readFileType, Nix >= 2.14.
  };
  skillScripts = lib.mapAttrs (_: p: p.script) (
    lib.removeAttrs self.packages.${system} [
      "benchcore"
      "benchmark-skill-plugin"
      "skills"
      "default"
    ]
  );
  devShell = {
    packages = map (p: p.name) self.devShells.${system}.default.packages;
    inherit (self.devShells.${system}.default) shellHook;
  };
  skillLinks = lib.concatStringsSep " " (
    lib.mapAttrsToList (n: p: "${n}=${p}") (
      lib.removeAttrs self.packages.${system} [
        "benchcore"
        "benchmark-skill-plugin"
        "skills"
        "default"
      ]
    )
  );
  agentLinks = lib.concatStringsSep " " (
    lib.mapAttrsToList (n: a: "${n}.md=${a.file}") (import ../../packages { inherit pkgs; }).agents
  );
  gcRoot = "${self.packages.${system}.skills}";
  checkNames = lib.attrNames self.checks.${system};
  # Each check's build script, which forces every home configuration it uses
  # (benchmark-core's source is a lib.fileset, which Nix 2.8 cannot evaluate).
  checkScripts = lib.mapAttrs (_: c: c.script) (
    lib.filterAttrs (n: _: !lib.hasPrefix "package-" n) (lib.removeAttrs self.checks.${system} [ "benchmark-core" ])
  );
  # `nix flake check` builds every package: each is a check named package-<name>.
  packagesChecked = lib.all (n: self.checks.${system}."package-${n}".outPath == self.packages.${system}.${n}.outPath) (
    lib.attrNames self.packages.${system}
  );
  # `nix run .` runs benchcore.
  apps = lib.mapAttrs (_: a: { inherit (a) type program; }) self.apps.${system};
  formatter = self.formatter.${system}.name;

  claudeCode =
    let
      plain = homeWithClaudeCode { } { skills = chosen; };
      moved = homeWithClaudeCode { configDir = "/home/check/.config/claude"; } { skills = chosen; };
      # The user names commit-message in programs.claude-code.skills too, as a folder of their own.
      clash = homeWithClaudeCode { skills.commit-message = ../../../skills/git/commit-message; } { };
      agentsDirClash = homeWithClaudeCode { agentsDir = ../../../skills/benchmark-skill/agents; } { };
      asPlugin = homeWithClaudeCode { package = pkgs.claude-code; } { benchmarkAsPlugin = true; };
      movedTarget = homeWithClaudeCode { } {
        skills = chosen;
        targetDir = ".config/claude/skills";
      };
    in
    {
      skills = lib.attrNames plain.config.programs.claude-code.skills;
      agents = lib.attrNames plain.config.programs.claude-code.agents;
      script = plain.activationPackage.script;
      movedScript = moved.activationPackage.script;
      movedVariables = moved.config.home.sessionVariables;
      clashRefused = refused clash;
      clashMessages = failedMessages clash;
      # what home.file holds for commit-message: the user's folder, once
      clashFiles = lib.mapAttrsToList (_: f: f.target) (
        lib.filterAttrs (_: f: lib.hasInfix "commit-message" f.target) clash.raw.config.home.file
      );
      agentsDirMessages = failedMessages agentsDirClash;
      movedTargetWarnings = movedTarget.config.warnings;
      plugin = {
        plugins = map (p: p.name) asPlugin.config.programs.claude-code.plugins;
        pluginScript = (lib.head asPlugin.config.programs.claude-code.plugins).script;
        skills = lib.attrNames asPlugin.config.programs.claude-code.skills;
        agents = lib.attrNames asPlugin.config.programs.claude-code.agents;
        wrapper = asPlugin.config.programs.claude-code.finalPackage.postBuild;
        withoutClaudeCode = failedMessages (homeWith { benchmarkAsPlugin = true; });
      };
    };

  home = {
    inherit chosen;
    unchosen = lib.subtractLists chosen skillNames;
    all = skillNames;
    chosenFiles = lib.mapAttrs (_: f: {
      inherit (f) target;
      source = toString f.source;
    }) (mkHome chosen).config.home.file;
    chosenScript = (mkHome chosen).activationPackage.script;
    allScript = (mkHome "all").activationPackage.script;
    unknownRefused = !(builtins.tryEval (builtins.deepSeq unknownHome.activationPackage.script true)).success;
    unknownMessages = map (a: a.message) (
      lib.filter (a: !a.assertion) unknownHome.raw.config.assertions
    );
    targetDirOverride = lib.attrNames
      (homeWith {
        skills = [ (lib.head skillNames) ];
        targetDir = ".config/claude/skills";
      }).config.home.file;
    # A user adding a skill of their own, and replacing one of the flake's by
    # name: the flake's other skills must stay.
    extended =
      lib.mapAttrs (_: f: toString f.source)
        (homeWith {
          availableSkills.my-own-skill = fakeDrv "my-own-skill" { };
          availableSkills.${lib.head skillNames} = fakeDrv "my-${lib.head skillNames}" { };
        }).config.home.file;
    # targetDir written with `~`: refused by an assertion naming the fix.
    tildeMessages =
      let
        raw =
          (homeManagerConfiguration {
            inherit pkgs;
            modules = [
              self.homeManagerModules.default
              {
                home = {
                  username = "check";
                  homeDirectory = "/home/check";
                  stateVersion = "26.05";
                };
                programs.claude-skills = {
                  enable = true;
                  targetDir = "~/.claude/skills";
                };
              }
            ];
          }).raw;
      in
      map (a: a.message) (lib.filter (a: !a.assertion) raw.config.assertions);
    disabled =
      (homeManagerConfiguration {
        inherit pkgs;
        modules = [
          self.homeManagerModules.default
          {
            home = {
              username = "check";
              homeDirectory = "/home/check";
              stateVersion = "26.05";
            };
          }
        ];
      }).config.home.file;
  };
}
