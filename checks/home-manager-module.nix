# checks.<system>.home-manager-module: evaluates home configurations that use
# homeManagerModules.default with home-manager itself, then inspects the
# produced home files with checks/home-manager-module.sh: the chosen skills
# are present with their SKILL.md, and the agent types they bring in
# agents/, the others absent; "all" places every skill, and a skill the user
# adds comes on top of the flake's; an unknown name fails with an assertion
# that names it. Beside home-manager's programs.claude-code (enabled, its
# configDir moved) the skills and agent types land in that configDir, and a
# skill set in both modules fails with one assertion naming it.
{
  lib,
  pkgs,
  runCommandLocal,
  home-manager,
  module,
}:
let
  mkHome =
    skills:
    home-manager.lib.homeManagerConfiguration {
      inherit pkgs;
      modules = [
        module
        {
          home = {
            username = "check";
            homeDirectory = "/home/check";
            stateVersion = "26.05";
          };
          programs.claude-skills = {
            enable = true;
            inherit skills;
          };
        }
      ];
    };

  # Beside home-manager's own programs.claude-code (package = null: nothing
  # to build; its configDir moved), and with the same skill set in both.
  mkHomeWithClaudeCode =
    claudeCode: skills:
    home-manager.lib.homeManagerConfiguration {
      inherit pkgs;
      modules = [
        module
        {
          home = {
            username = "check";
            homeDirectory = "/home/check";
            stateVersion = "26.05";
          };
          programs.claude-skills = {
            enable = true;
            inherit skills;
          };
          programs.claude-code = {
            enable = true;
            package = null;
          }
          // claudeCode;
        }
      ];
    };

  allHome = mkHome "all";
  names = lib.attrNames allHome.config.programs.claude-skills.availableSkills;
  # All but the last skill by name (or the only one).
  chosen = if lib.length names > 1 then lib.init names else names;
  unchosen = lib.subtractLists chosen names;
  someHome = mkHome chosen;

  # Bug this covers: the flake's skills were one mkDefault for the whole set,
  # so a user adding a skill of their own lost every skill of the flake.
  extraName = "my-own-skill";
  extraHome = home-manager.lib.homeManagerConfiguration {
    inherit pkgs;
    modules = [
      module
      {
        home = {
          username = "check";
          homeDirectory = "/home/check";
          stateVersion = "26.05";
        };
        programs.claude-skills = {
          enable = true;
          availableSkills.${extraName} = runCommandLocal extraName { } ''
            mkdir -p "$out"
            printf -- '---\nname: ${extraName}\ndescription: a user skill\n---\n' >"$out/SKILL.md"
          '';
        };
      }
    ];
  };

  binCheck = names: lib.optional (lib.elem "benchmark-skill" names) "benchmark-skill/bin/benchcore";
  agentsOf =
    names:
    lib.attrNames (
      lib.filterAttrs (_: a: lib.elem a.skill names) allHome.config.programs.claude-skills.availableAgents
    );

  movedHome = mkHomeWithClaudeCode { configDir = "/home/check/.config/claude"; } chosen;
  # home-manager refuses a configuration with a failed assertion before one
  # can read its config, so the messages come from the two modules evaluated
  # alone (this module and home-manager's programs/claude-code.nix), the
  # refusal from the real configuration.
  clashHome = mkHomeWithClaudeCode { skills.commit-message = ../skills/git/commit-message; } "all";
  clashMessages = map (a: a.message) (
    lib.filter (a: !a.assertion)
      ((import "${home-manager}/modules/lib/stdlib-extended.nix" lib).evalModules {
        modules = [
          module
          "${home-manager}/modules/programs/claude-code.nix"
          (
            { lib, ... }:
            let
              any = lib.mkOption {
                type = lib.types.unspecified;
                default = { };
              };
            in
            {
              options = {
                assertions = lib.mkOption { type = lib.types.listOf lib.types.unspecified; };
                warnings = lib.mkOption { type = lib.types.listOf lib.types.str; };
                meta = any;
                home.file = lib.mkOption { type = lib.types.attrsOf lib.types.unspecified; };
                home.homeDirectory = lib.mkOption { type = lib.types.str; };
                home.packages = lib.mkOption { type = lib.types.listOf lib.types.unspecified; };
                home.sessionVariables = lib.mkOption { type = lib.types.attrsOf lib.types.unspecified; };
              };
              config = {
                _module.args.pkgs = pkgs;
                home.homeDirectory = "/home/check";
                programs.claude-skills.enable = true;
                programs.claude-code = {
                  enable = true;
                  package = null;
                  skills.commit-message = ../skills/git/commit-message;
                };
              };
            }
          )
        ];
      }).config.assertions
  );
  # Bug this covers: a skill set in both modules failed with home-manager's
  # generic "Conflicting managed target files"; now one assertion names it.
  clashChecked =
    if
      lib.length clashMessages == 1
      && lib.hasInfix "both install the skill `commit-message`" (lib.head clashMessages)
      && !(builtins.tryEval clashHome.activationPackage.drvPath).success
    then
      "ok   the same skill in both modules: one assertion naming it"
    else
      throw "home-manager-module check: expected one assertion about commit-message, got: ${builtins.toJSON clashMessages}";
  movedVariables = movedHome.config.home.sessionVariables.CLAUDE_CONFIG_DIR or null;

  # home-manager refuses a configuration with a failed assertion; the message
  # is read from the module's own assertions.
  unknownName = "no-such-skill";
  unknownFails = !(builtins.tryEval (mkHome [ unknownName ]).activationPackage.drvPath).success;
  unknownMessages =
    (lib.evalModules {
      modules = [
        ../nix/home-manager/default.nix
        {
          options.assertions = lib.mkOption { type = lib.types.listOf lib.types.unspecified; };
          options.warnings = lib.mkOption { type = lib.types.listOf lib.types.str; };
          options.home.file = lib.mkOption { type = lib.types.attrsOf lib.types.unspecified; };
          options.home.homeDirectory = lib.mkOption { type = lib.types.str; };
          config.home.homeDirectory = "/home/check";
          config.programs.claude-skills = {
            enable = true;
            skills = [ unknownName ];
            inherit (allHome.config.programs.claude-skills) availableSkills;
          };
        }
      ];
    }).config.assertions;
  unknownMessage = lib.concatMapStringsSep "\n" (a: a.message) (
    lib.filter (a: !a.assertion) unknownMessages
  );

  run =
    {
      home,
      chosen,
      unchosen,
      dir ? ".claude",
    }:
    ''
      HOME_FILES=${home.config.home-files} \
      CHOSEN=${lib.escapeShellArg (toString chosen)} \
      UNCHOSEN=${lib.escapeShellArg (toString unchosen)} \
      TARGET_DIR=${dir}/skills \
      AGENTS=${lib.escapeShellArg (toString (agentsOf chosen))} \
      AGENTS_DIR=${dir}/agents \
      BIN_CHECK=${lib.escapeShellArg (toString (binCheck chosen))} \
      UNKNOWN_NAME=${unknownName} \
      UNKNOWN_FAILS=${if unknownFails then "1" else "0"} \
      UNKNOWN_MESSAGE=${lib.escapeShellArg unknownMessage} \
      bash ${./home-manager-module.sh}
    '';
in
runCommandLocal "check-home-manager-module" { } ''
  echo "== a list of skills"
  ${run {
    home = someHome;
    inherit chosen unchosen;
  }}
  echo "== all skills"
  ${run {
    home = allHome;
    chosen = names;
    unchosen = [ ];
  }}
  echo "== beside programs.claude-code, its configDir moved: skills and agent types follow it"
  ${run {
    home = movedHome;
    inherit chosen unchosen;
    dir = ".config/claude";
  }}
  test ${lib.escapeShellArg (toString movedVariables)} = /home/check/.config/claude
  echo ${lib.escapeShellArg clashChecked}
  echo "== all skills, plus one the user added"
  ${run {
    home = extraHome;
    chosen = names ++ [ extraName ];
    unchosen = [ ];
  }}
  touch "$out"
''
