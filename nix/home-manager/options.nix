{ lib, ... }:
let
  inherit (lib) literalExpression mkOption types;
in
{
  options.programs.claude-skills = {
    enable = lib.mkEnableOption "this flake's agent skills in Claude Code's personal skills folder";

    skills = mkOption {
      type = types.either (types.enum [ "all" ]) (types.listOf types.str);
      default = "all";
      example = literalExpression ''[ "commit-message" "benchmark-skill" ]'';
      description = ''
        Which skills to place: `"all"` (every skill of the flake) or a list
        of skill names. A skill's name is its folder's name under
        {file}`skills/`, for example `commit-message` for
        {file}`skills/git/commit-message`. A name that is not a skill of the
        flake fails the build with an assertion naming it.
      '';
    };

    targetDir = mkOption {
      type = types.str;
      default = ".claude/skills";
      example = ".config/claude/skills";
      description = ''
        Folder, relative to the home directory, where each chosen skill is
        linked as {file}`<targetDir>/<name>`. An absolute path inside the
        home directory works too; one outside it, an empty value, or a
        leading `~` (which home.file does not expand) fails with an
        assertion naming the fix. Claude Code reads personal
        skills from {file}`~/.claude/skills`; change this when
        {env}`CLAUDE_CONFIG_DIR` points elsewhere. Not used when
        home-manager's {option}`programs.claude-code` is enabled: the skills
        then go through {option}`programs.claude-code.skills`, into its
        {option}`programs.claude-code.configDir`.
      '';
    };

    agentsDir = mkOption {
      type = types.str;
      default = ".claude/agents";
      example = ".config/claude/agents";
      description = ''
        Folder, relative to the home directory, where the agent types the
        chosen skills bring (benchmark-skill's {file}`agents/*.md`:
        `bench-arm`, the sealed type every arm runs as, and its
        other agent types) are linked as {file}`<agentsDir>/<name>.md`.
        Claude Code reads personal agent types from {file}`~/.claude/agents`
        at session start. The same rules as {option}`targetDir` apply. Not
        used when home-manager's {option}`programs.claude-code` is enabled:
        the agent types then go through {option}`programs.claude-code.agents`.
      '';
    };

    benchmarkAsPlugin = lib.mkOption {
      type = types.bool;
      default = false;
      description = ''
        Install `benchmark-skill` as a Claude Code plugin through
        home-manager's {option}`programs.claude-code.plugins` (which passes
        it to {command}`claude --plugin-dir` in its wrapper, so it needs
        {option}`programs.claude-code.enable` and its `package`), instead of
        as a skill with its agent types beside. As a plugin, its skill is
        `/benchmark-skill:benchmark-skill` and its agent types
        `benchmark-skill:<name>`; `benchcore plan` finds them under those
        names. Only when `benchmark-skill` is among the chosen skills.
      '';
    };

    benchmarkPlugin = mkOption {
      type = types.package;
      defaultText = literalExpression "the flake's packages.<system>.benchmark-skill-plugin, built with your pkgs";
      description = "The benchmark plugin folder {option}`benchmarkAsPlugin` installs.";
    };

    availableAgents = mkOption {
      type = types.attrsOf (
        types.submodule {
          options = {
            skill = mkOption {
              type = types.str;
              description = "The skill that brings this agent type; it is installed when that skill is chosen.";
            };
            source = mkOption {
              type = types.path;
              description = "The agent type's file (Markdown with frontmatter).";
            };
          };
        }
      );
      default = { };
      defaultText = literalExpression "the agent types the flake's skills bring in their agents/ folders";
      description = ''
        Agent types by name, each with the skill that brings it. The flake's
        module sets this to the files in its skills' {file}`agents/` folders.
      '';
    };

    availableSkills = mkOption {
      type = types.attrsOf types.package;
      default = { };
      defaultText = literalExpression "every skill of the flake, built with your pkgs";
      example = literalExpression ''{ my-skill = pkgs.runCommand "my-skill" { } "cp -R ''${./my-skill} $out"; }'';
      description = ''
        The skills to choose from, by name, each a package whose output is
        the skill's folder. The flake's module sets this to its own skills;
        each name you set adds a skill, or replaces the flake's skill of that
        name, and the flake's other skills stay.
      '';
    };
  };
}
