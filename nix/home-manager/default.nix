# Installs the chosen skills, and the agent types they bring, for Claude Code.
# The flake's homeManagerModules.default imports this with availableSkills and
# availableAgents set to its own (see ./flake-module.nix).
#
# Two ways, by whether home-manager's own programs.claude-code is enabled:
#   - enabled: through its options. Each skill becomes
#     programs.claude-code.skills.<name> (the skill's package, a folder) and
#     each agent type programs.claude-code.agents.<name> (its file), so both
#     land in programs.claude-code.configDir, wherever that is (it exports
#     CLAUDE_CONFIG_DIR when it is not ~/.claude, and Claude Code and
#     benchcore read that). Ours are defaults: a definition of the same name
#     in programs.claude-code is yours and wins, and an assertion asks you to
#     keep one of the two. With benchmarkAsPlugin, benchmark-skill and its
#     agent types go as one plugin, programs.claude-code.plugins.
#   - not enabled: home.file links, <targetDir>/<name> for each skill and
#     <agentsDir>/<name>.md for each agent type (defaults ~/.claude/skills and
#     ~/.claude/agents).
{
  config,
  lib,
  options,
  ...
}:
let
  cfg = config.programs.claude-skills;
  skillsLib = import ../lib;

  available = builtins.attrNames cfg.availableSkills;
  selection = skillsLib.select {
    inherit available;
    chosen = cfg.skills;
  };
  chosenSkills = lib.genAttrs selection.selected (name: cfg.availableSkills.${name});
  chosenAgents = lib.filterAttrs (_: a: lib.elem a.skill selection.selected) cfg.availableAgents;

  dirMessages = lib.filter (m: m != null) (
    map
      (
        option:
        skillsLib.targetDirMessage {
          option = "programs.claude-skills.${option}";
          targetDir = cfg.${option};
          home = config.home.homeDirectory;
        }
      )
      [
        "targetDir"
        "agentsDir"
      ]
  );

  # home-manager's own module (modules/programs/claude-code.nix), when it is
  # part of the configuration and enabled.
  hasClaudeCode = options ? programs && options.programs ? claude-code;
  cc = config.programs.claude-code;
  viaClaudeCode = hasClaudeCode && cc.enable;

  # A name both modules set with different values: programs.claude-code's
  # definition wins (ours is a default), and this asks the user to keep one.
  clash =
    kind: ours: theirs:
    lib.filter (name: theirs ? ${name} && toString theirs.${name} != toString ours.${name}) (
      lib.attrNames ours
    );
  clashMessage =
    kind: name:
    "programs.claude-skills and programs.claude-code both install the ${kind} `${name}` "
    + "(programs.claude-code.${kind}s.${name} is set, and programs.claude-skills.skills chooses "
    + (if kind == "skill" then "it" else "the skill `${cfg.availableAgents.${name}.skill}` that brings it")
    + "). Keep one: remove programs.claude-code.${kind}s.${name}, or leave "
    + (if kind == "skill" then "`${name}`" else "`${cfg.availableAgents.${name}.skill}`")
    + " out of programs.claude-skills.skills.";
  # benchmarkAsPlugin: benchmark-skill and its agent types go as one plugin instead.
  asPlugin = viaClaudeCode && cfg.benchmarkAsPlugin && lib.elem "benchmark-skill" selection.selected;
  ourSkills = if asPlugin then removeAttrs chosenSkills [ "benchmark-skill" ] else chosenSkills;
  ourAgents = lib.mapAttrs (_: a: a.source) (
    if asPlugin then lib.filterAttrs (_: a: a.skill != "benchmark-skill") chosenAgents else chosenAgents
  );
in
{
  imports = [ ./options.nix ];

  config = lib.mkIf cfg.enable (
    lib.mkMerge [
      {
        assertions =
          map (name: {
            assertion = false;
            message = skillsLib.unknownSkillMessage {
              option = "programs.claude-skills.skills";
              inherit name available;
            };
          }) selection.unknown
          ++ lib.optionals (!viaClaudeCode) (
            map (message: {
              assertion = false;
              inherit message;
            }) dirMessages
          )
          ++ lib.optional (cfg.benchmarkAsPlugin && !viaClaudeCode) {
            assertion = false;
            message =
              "programs.claude-skills.benchmarkAsPlugin installs the benchmark through home-manager's "
              + "programs.claude-code.plugins (claude --plugin-dir), so it needs programs.claude-code.enable = true "
              + "(with its package). Enable programs.claude-code, or turn benchmarkAsPlugin off to install "
              + "benchmark-skill as a skill with its agent types.";
          }
          ++ lib.optionals viaClaudeCode (
            map (name: {
              assertion = false;
              message = clashMessage "skill" name;
            }) (clash "skill" ourSkills (if builtins.isAttrs cc.skills then cc.skills else { }))
            ++ map (name: {
              assertion = false;
              message = clashMessage "agent" name;
            }) (clash "agent" ourAgents cc.agents)
            ++ lib.optional (cc.agentsDir != null && ourAgents != { }) {
              assertion = false;
              message =
                "programs.claude-skills installs the agent types ${
                  lib.concatMapStringsSep ", " (n: "`${n}`") (lib.attrNames ourAgents)
                } through programs.claude-code.agents, which home-manager does not allow beside "
                + "programs.claude-code.agentsDir. Put their files in your agentsDir (they are in the "
                + "benchmark-skill package's agents/ folder), then leave benchmark-skill out of "
                + "programs.claude-skills.skills and add it to programs.claude-code.skills yourself; "
                + "or use programs.claude-code.agents instead of agentsDir.";
            }
          );

        warnings =
          lib.optional
(viaClaudeCode && cfg.targetDir != ".claude/skills")
            "programs.claude-skills.targetDir (${cfg.targetDir}) is not used while programs.claude-code is enabled: the skills go to programs.claude-code.configDir (${cc.configDir}/skills). Remove the setting, or set programs.claude-code.configDir.";
      }

      (lib.mkIf (!viaClaudeCode) {
        home.file =
          skillsLib.homeFiles {
            skills = cfg.availableSkills;
            chosen = cfg.skills;
            inherit (cfg) targetDir;
          }
          // lib.mapAttrs' (
            name: a: lib.nameValuePair "${skillsLib.normalizeDir cfg.agentsDir}/${name}.md" { inherit (a) source; }
          ) chosenAgents;
      })

      (lib.optionalAttrs hasClaudeCode {
        programs.claude-code = lib.mkIf viaClaudeCode {
          plugins = lib.mkIf asPlugin [ cfg.benchmarkPlugin ];
          skills = lib.mapAttrs (_: lib.mkDefault) ourSkills;
          agents = lib.mkIf (cc.agentsDir == null) (lib.mapAttrs (_: lib.mkDefault) ourAgents);
        };
      })
    ]
  );
}
