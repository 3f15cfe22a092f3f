# Every package of the flake for one nixpkgs. The flake calls it with its
# pinned nixpkgs for packages.<system>; the home-manager module calls it with
# the user's pkgs.
#
# Returns { benchcore; skills = { <name> = drv; }; all = drv; agents; benchmarkPlugin; }:
# agents = { <agent> = { skill; source; file; }; } for each <skill>/agents/<agent>.md
# (source: the file in this repository; file: the same file in the skill's package).
{ pkgs }:
let
  inherit (pkgs) lib;
  skillsLib = import ../lib;

  found = skillsLib.discover ../..;
  names = skillsLib.checkReserved (builtins.attrNames found);

  benchcore = pkgs.callPackage ./benchcore.nix { };
  mkSkill = pkgs.callPackage ./skill.nix { };

  # What a skill needs beyond its folder, by name. The installed
  # benchmark-skill runs ${CLAUDE_SKILL_DIR}/bin/benchcore; benchcore finds
  # the skill's templates/ through BENCHMARK_SKILL_DIR.
  extras = {
    benchmark-skill = {
      bin.benchcore = {
        program = lib.getExe benchcore;
        skillDirVar = "BENCHMARK_SKILL_DIR";
      };
    };
  };

  skills = lib.genAttrs names (
    name:
    mkSkill (
      {
        inherit name;
        src = found.${name}.path;
      }
      // (extras.${name} or { })
    )
  );

  # The benchmark as a Claude Code plugin folder (for home-manager's
  # programs.claude-code.plugins, which passes it to claude --plugin-dir): the
  # repository's plugin manifest and a copy of the benchmark-skill package
  # (with bin/benchcore) at the path the manifest names; its agent types are
  # then benchmark-skill:<name>.
  benchmarkPlugin = pkgs.runCommandLocal "claude-plugin-benchmark-skill" { } ''
    mkdir -p "$out/.claude-plugin" "$out/skills"
    cp ${../../plugins/benchmark-skill/.claude-plugin/plugin.json} "$out/.claude-plugin/plugin.json"
    cp -R ${skills.benchmark-skill} "$out/skills/benchmark-skill"
  '';

  agents = builtins.mapAttrs (
    name: a: a // { file = "${skills.${a.skill}}/agents/${name}.md"; }
  ) (skillsLib.agents found);
in
{
  inherit benchcore skills agents benchmarkPlugin;
  # Every skill, as <name> -> its package, in one folder.
  all = pkgs.linkFarm "claude-skills" (
    lib.mapAttrsToList (name: path: { inherit name path; }) skills
  );
}
