# One skill as a package, written for callPackage: the output is exactly the
# skill's folder (SKILL.md at its top), so it can be linked as
# .claude/skills/<name>. The derivation is named claude-skill-<name>; the dev
# shell's hook recognises its own links by that name.
#
# `bin` adds programs: { <file> = { program; skillDirVar ? null; }; } makes
# bin/<file> a wrapper that runs `program`; when `skillDirVar` is set, the
# wrapper sets that environment variable to this skill's own folder unless
# the caller already set it (benchmark-skill's bin/benchcore finds its
# templates/ this way). A committed bin/<file> is replaced by the wrapper.
{
  lib,
  runCommandLocal,
  makeWrapper,
}:
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
    nativeBuildInputs = lib.optional (bin != { }) makeWrapper;
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
      lib.mapAttrsToList (file: spec: ''
        mkdir -p "$out/bin"
        rm -f "$out/bin/${file}"
        makeWrapper ${lib.escapeShellArg spec.program} "$out/bin/${file}" ${
          lib.optionalString ((spec.skillDirVar or null) != null) ''--set-default ${spec.skillDirVar} "$out"''
        }
      '') bin
    )
  )
