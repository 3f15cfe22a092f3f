# Skill discovery with builtins only, so it evaluates without nixpkgs
# (`nix-instantiate --eval --strict` is enough to test it).
#
# A skill is a folder under `<root>/skills` that holds a SKILL.md, at any
# depth; its name is the folder's leaf name (`skills/git/commit-message` is
# `commit-message`). The walk never enters:
#   - a skill folder (what lies inside belongs to that skill),
#   - a folder named `tests` (test cases mirror skills/ and are never packaged),
#   - a folder whose name starts with `.`.
# Only `<root>/skills` is read, so the repository's `tests/` is never looked at.
#
# Evaluation fails with a message naming the files and the fix when
#   - two skills have one name,
#   - a SKILL.md has no frontmatter `name:` or one that differs from its folder,
#   - a SKILL.md sits directly in skills/ (a skill needs its own folder).
let
  inherit (builtins)
    attrNames
    baseNameOf
    concatMap
    concatStringsSep
    elemAt
    filter
    foldl'
    genList
    head
    isString
    length
    listToAttrs
    match
    readDir
    readFile
    split
    tail
    ;

  joinRel = rel: name: if rel == "" then name else "${rel}/${name}";

  skipped = name: name == "tests" || match "\\..*" name != null;

  # Whether a readDir entry type can hold a file we read (a symlink may).
  isFileLike = type: type == "regular" || type == "symlink";

  # walk : path -> string -> [ { name; relPath; } ]
  walk =
    skillsDir: rel:
    let
      dir = if rel == "" then skillsDir else skillsDir + "/${rel}";
      entries = readDir dir;
      holdsSkill = entries ? "SKILL.md" && isFileLike entries."SKILL.md";
      subdirs = filter (n: entries.${n} == "directory" && !skipped n) (attrNames entries);
    in
    if holdsSkill then
      [
        {
          name = baseNameOf rel;
          relPath = rel;
        }
      ]
    else
      concatMap (n: walk skillsDir (joinRel rel n)) subdirs;

  # Lines of the YAML frontmatter (between the first two `---` lines), or
  # null when the text does not start with a frontmatter block.
  frontmatterLines =
    text:
    let
      lines = map (l: let m = match "(.*)\r" l; in if m == null then l else head m) (
        filter isString (split "\n" text)
      );
      n = length lines;
      closing = foldl' (
        found: i: if found == null && i > 0 && elemAt lines i == "---" then i else found
      ) null (genList (i: i) n);
    in
    if n == 0 || head lines != "---" || closing == null then
      null
    else
      genList (i: elemAt lines (i + 1)) (closing - 1);

  unquote =
    v:
    let
      dq = match "\"(.*)\"" v;
      sq = match "'(.*)'" v;
    in
    if dq != null then
      head dq
    else if sq != null then
      head sq
    else
      v;

  # The top-level `name:` value of a SKILL.md's frontmatter, or null.
  frontmatterName =
    text:
    let
      lines = frontmatterLines text;
      values = if lines == null then [ ] else filter (m: m != null) (map (match "name:[[:space:]]*(.*[^[:space:]])[[:space:]]*") lines);
    in
    if values == [ ] then null else unquote (head (head values));

  # discover : path -> { <name> = { name; relPath; path; }; }
  # `root` is the repository root; skills are read from `root + "/skills"`.
  discover =
    root:
    let
      skillsDir = root + "/skills";
      topEntries = readDir skillsDir;
      found = map (s: s // { path = skillsDir + "/${s.relPath}"; }) (walk skillsDir "");

      shown = s: "skills/${s.relPath}";

      byName = foldl' (acc: s: acc // { ${s.name} = (acc.${s.name} or [ ]) ++ [ s ]; }) { } found;
      duplicates = filter (n: length byName.${n} > 1) (attrNames byName);
      duplicateMessage =
        n:
        "skills: ${toString (length byName.${n})} skills are named `${n}`: "
        + concatStringsSep ", " (map shown byName.${n})
        + ". A skill's name is its folder's leaf name and must be unique in the repository; rename all but one of these folders (and the `name:` in their SKILL.md).";

      problems = concatMap (
        s:
        let
          declared = frontmatterName (readFile (s.path + "/SKILL.md"));
        in
        if declared == null then
          [
            "${shown s}/SKILL.md: no `name:` in its frontmatter. Start the file with a `---` block holding `name: ${s.name}` (the folder's name)."
          ]
        else if declared != s.name then
          [
            "${shown s}/SKILL.md: frontmatter says `name: ${declared}` but the folder is `${s.name}`. A skill's name is its folder's name: set `name: ${s.name}` or rename the folder to `${declared}`."
          ]
        else
          [ ]
      ) found;

      fail = messages: throw ("skill discovery failed:\n" + concatStringsSep "\n" (map (m: "  - " + m) messages));
    in
    if topEntries ? "SKILL.md" then
      fail [ "skills/SKILL.md: a skill needs its own folder; move it to skills/<name>/SKILL.md." ]
    else if duplicates != [ ] then
      fail (map duplicateMessage duplicates)
    else if problems != [ ] then
      fail problems
    else
      listToAttrs (
        map (s: {
          inherit (s) name;
          value = s;
        }) found
      );

  # agents : { <skill> = { path; ... }; } -> { <agent> = { skill; source; }; }
  # The agent types skills bring: each `<skill>/agents/<agent>.md` (the
  # benchmark-skill's bench-arm and bench-judge). Two skills bringing one
  # agent name fail evaluation, naming both files.
  agents =
    found:
    let
      inherit (builtins) pathExists;
      perSkill = concatMap (
        skill:
        let
          dir = found.${skill}.path + "/agents";
          entries = if pathExists dir then readDir dir else { };
          files = filter (f: isFileLike entries.${f} && match "[^.].*\\.md" f != null) (attrNames entries);
        in
        map (f: {
          name = head (match "(.*)\\.md" f);
          value = {
            inherit skill;
            source = dir + "/${f}";
          };
        }) files
      ) (attrNames found);
      byName = foldl' (acc: a: acc // { ${a.name} = (acc.${a.name} or [ ]) ++ [ a.value ]; }) { } perSkill;
      clashes = filter (n: length byName.${n} > 1) (attrNames byName);
    in
    if clashes != [ ] then
      throw (
        "skill discovery failed:\n"
        + concatStringsSep "\n" (
          map (
            n:
            "  - the agent type `${n}` is brought by ${toString (length byName.${n})} skills ("
            + concatStringsSep ", " (map (a: "skills/${found.${a.skill}.relPath}/agents/${n}.md") byName.${n})
            + "); agent types are installed by name, so rename all but one."
          ) clashes
        )
      )
    else
      listToAttrs perSkill;
in
{
  inherit discover frontmatterName agents;
}
