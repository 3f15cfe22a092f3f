# Choosing skills by name, builtins only. The home-manager module uses these;
# the unit tests in nix/tests evaluate them without nixpkgs.
let
  inherit (builtins)
    attrNames
    concatStringsSep
    elem
    filter
    head
    isList
    listToAttrs
    map
    match
    replaceStrings
    stringLength
    substring
    ;

  # select : { available : [string]; chosen : "all" | [string]; }
  #       -> { selected : [string]; unknown : [string]; }
  # `selected` keeps the order of `available` (sorted by name when it comes
  # from attrNames), so the result does not depend on how the list was written.
  select =
    { available, chosen }:
    if chosen == "all" then
      {
        selected = available;
        unknown = [ ];
      }
    else if isList chosen then
      {
        selected = filter (n: elem n chosen) available;
        unknown = filter (n: !(elem n available)) chosen;
      }
    else
      throw "skills: expected \"all\" or a list of skill names";

  # The assertion message for a name that is not a skill of this flake.
  unknownSkillMessage =
    { option, name, available }:
    "${option} names `${name}`, which is not a skill of this flake. "
    + "The skills are: ${concatStringsSep ", " available}. "
    + (
      if name == "all" then
        "To choose every skill, write `${option} = \"all\";` (a string, not a list)."
      else
        "Fix the spelling or remove `${name}` from the list."
    );

  # targetDirMessage : { option; targetDir; home : string; } -> string or null
  # Why a target folder cannot work, as an assertion message naming the fix,
  # or null when it can. It must be relative to the home folder (an absolute
  # path inside `home` is accepted too, as home.file accepts it); `~` is not
  # expanded by home.file, so a leading `~` would create a folder named `~`.
  targetDirMessage =
    { option, targetDir, home }:
    let
      inHome = substring 0 (stringLength home + 1) targetDir == "${home}/";
    in
    if targetDir == "" || normalizeDir targetDir == normalizeDir home then
      "${option} ${if targetDir == "" then "is empty" else "is `${targetDir}`"}, which would put each skill directly in your home folder. Set it to a folder relative to your home folder, such as `.claude/skills`."
    else if match "~.*" targetDir != null then
      "${option} is `${targetDir}`, but home.file does not expand `~`: it would create a folder named `~`. Write it relative to your home folder, without `~/`: `${normalizeDir (replaceStrings [ "~/" ] [ "" ] targetDir)}`."
    else if match "/.*" targetDir != null && !inHome then
      "${option} is `${targetDir}`, which is outside your home folder (${home}); home-manager only places files inside it. Write it relative to your home folder, such as `.claude/skills`."
    else
      null;

  # A target folder without trailing slashes (`.claude/skills/` -> `.claude/skills`).
  normalizeDir =
    dir:
    let
      m = match "(.*[^/])/+" dir;
    in
    if dir == "" || match "/+" dir != null then "" else if m == null then dir else head m;

  # homeFiles : { skills : { <name> = source; }; chosen; targetDir : string; }
  #          -> { "<targetDir>/<name>" = { source = <source>; }; }
  # Shaped for home-manager's `home.file`: each chosen skill becomes one link
  # to its folder. Unknown names are left out (the module asserts on them).
  homeFiles =
    { skills, chosen, targetDir }:
    let
      picked = (select {
        available = attrNames skills;
        inherit chosen;
      }).selected;
    in
    listToAttrs (
      map (name: {
        name = "${normalizeDir targetDir}/${name}";
        value = {
          source = skills.${name};
        };
      }) picked
    );

  # Package attribute names the flake uses itself; a skill cannot take them.
  reservedNames = [
    "benchcore"
    "benchmark-skill-plugin"
    "default"
    "skills"
  ];

  # checkReserved : [string] -> [string], failing on a reserved name.
  checkReserved =
    names:
    let
      clashes = filter (n: elem n reservedNames) names;
    in
    if clashes == [ ] then
      names
    else
      throw (
        "skills: a skill may not be named "
        + concatStringsSep " or " (map (n: "`${n}`") clashes)
        + ": the flake's packages.<system>.{${concatStringsSep "," reservedNames}} already use those names. Rename the skill's folder and its `name:`."
      );
in
{
  inherit
    select
    unknownSkillMessage
    targetDirMessage
    normalizeDir
    homeFiles
    reservedNames
    checkReserved
    ;
}
