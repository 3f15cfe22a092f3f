# One skill as a package, written for callPackage: the output is exactly the
# skill's folder (SKILL.md at its top), so it can be linked as
# .claude/skills/<name>. The derivation is named claude-skill-<name>; the dev
# shell's hook recognises its own links by that name.
#
# `bin` adds executables: { <file name> = <path>; } becomes bin/<file name>,
# a link to <path> (benchmark-skill carries bin/benchcore this way). A file of
# that name committed in the skill is replaced by the link.
{ lib, runCommandLocal }:
{
  name,
  src,
  bin ? { },
}:
runCommandLocal "claude-skill-${name}"
  {
    src = builtins.path {
      path = src;
      name = "claude-skill-${name}-source";
    };
    passthru.skillName = name;
    meta = {
      description = "The ${name} agent skill: its SKILL.md and files, as committed";
      platforms = lib.platforms.all;
    };
  }
  (
    ''
      cp -R "$src" "$out"
      chmod -R u+w "$out"
    ''
    + lib.concatStrings (
      lib.mapAttrsToList (file: target: ''
        mkdir -p "$out/bin"
        rm -f "$out/bin/${file}"
        ln -s ${target} "$out/bin/${file}"
      '') bin
    )
  )
