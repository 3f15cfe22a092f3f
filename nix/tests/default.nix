# Unit tests for the builtins-only library in nix/lib.
#
#   nix-instantiate --eval --strict nix/tests
#
# prints "ok: N tests" or fails, listing each failing case with what it
# computed and what was expected. The error messages themselves are checked
# by nix/tests/run.sh, which evaluates the failing fixtures and reads stderr.
let
  inherit (builtins)
    attrNames
    baseNameOf
    concatStringsSep
    deepSeq
    filter
    length
    mapAttrs
    pathExists
    toJSON
    tryEval
    ;

  lib = import ../lib;
  fixtures = ./fixtures;

  fails = x: !(tryEval (deepSeq x x)).success;

  nested = lib.discover (fixtures + "/nested");

  cases = {
    "discover: finds skills at every depth, named by leaf folder" = {
      expr = attrNames nested;
      expected = [
        "commit-message"
        "deep-skill"
        "top-skill"
      ];
    };
    "discover: records each skill's path under skills/" = {
      expr = mapAttrs (_: s: s.relPath) nested;
      expected = {
        commit-message = "git/commit-message";
        deep-skill = "a/b/c/deep-skill";
        top-skill = "top-skill";
      };
    };
    "discover: path is the skill's folder" = {
      expr = map (n: pathExists (nested.${n}.path + "/SKILL.md")) (attrNames nested);
      expected = [
        true
        true
        true
      ];
    };
    "discover: a skill's own subfolders are not searched (assets/example is not a skill)" = {
      expr = nested ? example;
      expected = false;
    };
    "discover: folders named tests and hidden folders are never entered" = {
      expr = [
        (nested ? not-ignored)
        (nested ? wrong)
      ];
      expected = [
        false
        false
      ];
    };
    "discover: two skills with one name fail evaluation" = {
      expr = fails (lib.discover (fixtures + "/duplicate"));
      expected = true;
    };
    "discover: a frontmatter name that differs from the folder fails evaluation" = {
      expr = fails (lib.discover (fixtures + "/mismatch"));
      expected = true;
    };
    "discover: a SKILL.md without frontmatter name fails evaluation" = {
      expr = fails (lib.discover (fixtures + "/noname"));
      expected = true;
    };
    "discover: a SKILL.md directly in skills/ fails evaluation" = {
      expr = fails (lib.discover (fixtures + "/rootskill"));
      expected = true;
    };

    "frontmatterName: plain, quoted, CRLF" = {
      expr = map lib.frontmatterName [
        "---\nname: a\n---\n"
        "---\nname: \"b\"\n---\n"
        "---\nname: 'c'  \n---\n"
        "---\r\nname: d\r\n---\r\n"
      ];
      expected = [
        "a"
        "b"
        "c"
        "d"
      ];
    };
    "frontmatterName: only top-level keys inside the frontmatter count" = {
      expr = map lib.frontmatterName [
        "---\nmeta:\n  name: x\n---\nname: y\n"
        "# no frontmatter\nname: z\n"
        "---\nname: unterminated\n"
        ""
      ];
      expected = [
        null
        null
        null
        null
      ];
    };

    "select: all" = {
      expr = lib.select {
        available = [
          "a"
          "b"
        ];
        chosen = "all";
      };
      expected = {
        selected = [
          "a"
          "b"
        ];
        unknown = [ ];
      };
    };
    "select: a list keeps the available order and reports unknown names" = {
      expr = lib.select {
        available = [
          "a"
          "b"
          "c"
        ];
        chosen = [
          "c"
          "nope"
          "a"
        ];
      };
      expected = {
        selected = [
          "a"
          "c"
        ];
        unknown = [ "nope" ];
      };
    };
    "unknownSkillMessage: names the option, the name and the choices" = {
      expr = lib.unknownSkillMessage {
        option = "programs.claude-skills.skills";
        name = "nope";
        available = [
          "a"
          "b"
        ];
      };
      expected = "programs.claude-skills.skills names `nope`, which is not a skill of this flake. The skills are: a, b. Fix the spelling or remove `nope` from the list.";
    };
    # Bug this covers: `skills = [ "all" ]` was told to fix its spelling.
    "unknownSkillMessage: \"all\" in a list is told to be a string" = {
      expr = lib.unknownSkillMessage {
        option = "programs.claude-skills.skills";
        name = "all";
        available = [ "a" ];
      };
      expected = "programs.claude-skills.skills names `all`, which is not a skill of this flake. The skills are: a. To choose every skill, write `programs.claude-skills.skills = \"all\";` (a string, not a list).";
    };
    "homeFiles: one home.file entry per chosen skill under the target folder" = {
      expr = lib.homeFiles {
        skills = {
          a = "/store/a";
          b = "/store/b";
        };
        chosen = [
          "b"
          "nope"
        ];
        targetDir = ".claude/skills";
      };
      expected = {
        ".claude/skills/b" = {
          source = "/store/b";
        };
      };
    };
    # Bug these cover: a targetDir of "~/.claude/skills" made home.file create
    # a folder named `~`, "" or an absolute path outside home were accepted,
    # and a trailing slash gave targets with `//`.
    "targetDirMessage: relative folders and absolute ones inside home are fine" = {
      expr = map (targetDir: lib.targetDirMessage {
        option = "o";
        inherit targetDir;
        home = "/home/u";
      }) [
        ".claude/skills"
        ".claude/skills/"
        "/home/u/.claude/skills"
      ];
      expected = [
        null
        null
        null
      ];
    };
    "targetDirMessage: ~, empty, home itself and outside home are refused, naming the fix" = {
      expr = map (targetDir: lib.targetDirMessage {
        option = "o";
        inherit targetDir;
        home = "/home/u";
      }) [
        "~/.claude/skills/"
        ""
        "/home/u/"
        "/etc/skills"
        "/home/user/x"
      ];
      expected = [
        "o is `~/.claude/skills/`, but home.file does not expand `~`: it would create a folder named `~`. Write it relative to your home folder, without `~/`: `.claude/skills`."
        "o is empty, which would put each skill directly in your home folder. Set it to a folder relative to your home folder, such as `.claude/skills`."
        "o is `/home/u/`, which would put each skill directly in your home folder. Set it to a folder relative to your home folder, such as `.claude/skills`."
        "o is `/etc/skills`, which is outside your home folder (/home/u); home-manager only places files inside it. Write it relative to your home folder, such as `.claude/skills`."
        "o is `/home/user/x`, which is outside your home folder (/home/u); home-manager only places files inside it. Write it relative to your home folder, such as `.claude/skills`."
      ];
    };
    "homeFiles: a trailing slash on the target folder gives no double slash" = {
      expr = builtins.attrNames (lib.homeFiles {
        skills.a = "/store/a";
        chosen = "all";
        targetDir = ".claude/skills//";
      });
      expected = [ ".claude/skills/a" ];
    };
    "agents: each <skill>/agents/<name>.md, by name, with its skill; other files ignored" = {
      expr = builtins.mapAttrs (_: a: {
        inherit (a) skill;
        exists = pathExists a.source;
        file = baseNameOf (toString a.source);
      }) (lib.agents nested);
      expected = {
        helper = {
          skill = "top-skill";
          exists = true;
          file = "helper.md";
        };
      };
    };
    "agents: two skills bringing one agent name fail evaluation" = {
      expr = fails (lib.agents (lib.discover (fixtures + "/agent-clash")));
      expected = true;
    };
    "checkReserved: ordinary names pass, package names fail" = {
      expr = [
        (lib.checkReserved [
          "a"
          "b"
        ])
        (fails (lib.checkReserved [
          "a"
          "skills"
        ]))
      ];
      expected = [
        [
          "a"
          "b"
        ]
        true
      ];
    };
  };

  failures = filter (n: cases.${n}.expr != cases.${n}.expected) (attrNames cases);
  report =
    n: "FAIL ${n}\n  got:      ${toJSON cases.${n}.expr}\n  expected: ${toJSON cases.${n}.expected}";
in
if failures == [ ] then
  "ok: ${toString (length (attrNames cases))} tests"
else
  throw ("\n" + concatStringsSep "\n" (map report failures))
