"""The guard's rules: may an arm's tool call run, given its world and skill copy? (no I/O but path resolution)

An arm may touch two folders: its world and its own skill copy (the copy read-only).
A file tool (Read, Write, Edit, ...) is allowed when the path it names, symlinks
resolved, lies in one of them, and refused otherwise. A Bash command is parsed
(``shlex``) and allowed only when every part of it is shown to stay inside: a
known tool that runs no code of its own choosing, every path operand (absolute,
relative to a ``cd``/``git -C`` into the world, globs expanded) inside, and
nothing the parse cannot follow (``$``, backticks, subshells, ``eval``,
interpreters). What reaches outside is refused ("deny"); what the parse cannot
show safe is left to the user ("ask"). Nothing is ever allowed on a guess. This
command parse is what an unsandboxed run (``plan --no-sandbox``) has instead
of the OS sandbox: a filter, not a confinement (every earlier escape worked
through it); a sandboxed run uses only the path rules.

Paths are resolved through ``resolve`` (``os.path.realpath`` by default) and
globs through ``expand``, so the table-driven tests can give a fake file system.
"""

from __future__ import annotations

import glob as globmod
import os
import shlex
from typing import Callable, Iterable, Optional

from attrs import frozen

ALLOW, DENY, ASK = "allow", "deny", "ask"

# Tools that take a path, and the input field that names it.
FILE_TOOLS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
              "NotebookEdit": "notebook_path", "NotebookRead": "notebook_path", "LS": "path",
              "Glob": "path", "Grep": "path"}
WRITE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}
# Tools an arm may not use at all: they reach past the world by design (a helper agent the guard could not
# tell from a stranger, an installed skill instead of the copy, a workflow of its own).
NO_TOOLS = {"Agent": "an arm works alone: a helper agent would work outside the guard",
            "Task": "an arm works alone: a helper agent would work outside the guard",
            "Skill": "an arm uses the skill copy in its prompt, never an installed skill",
            "Workflow": "an arm works alone: a workflow would run agents outside the guard"}
# Tools that run a command or code outside the arm's OS sandbox, or start work that goes on after the call
# returns (beside the arm's own file tools, whose path check it could then race): refused for every arm, even
# when benchmark.yaml ``tools`` names them.
BACKGROUND_TOOLS = {
    "Monitor": "Monitor runs a command in the background, beside the arm's own file tools; run it with Bash",
    "PowerShell": "PowerShell runs commands outside the arm's OS sandbox; use Bash",
    "REPL": "REPL runs code outside the arm's OS sandbox; use Bash",
    "Eval": "Eval runs code outside the arm's OS sandbox; use Bash",
    "CronCreate": "an arm cannot schedule work to run after its call",
    "ScheduleWakeup": "an arm cannot schedule work to run after its call",
    "RemoteTrigger": "an arm cannot start work elsewhere",
}
NO_TOOLS.update(BACKGROUND_TOOLS)

# Commands that read or write only the files named on their command line and run nothing else.
READERS = {"cat", "head", "tail", "wc", "ls", "grep", "egrep", "fgrep", "rg", "sort", "uniq", "cut", "tr", "diff",
           "cmp", "file", "stat", "du", "tree", "fold", "nl", "od", "hexdump", "base64", "md5sum", "sha1sum",
           "sha256sum", "basename", "dirname", "realpath", "readlink", "pwd", "echo", "printf", "true", "false",
           "test", "[", "column", "comm", "paste", "join", "expand", "unexpand", "rev", "tac", "strings", "jq",
           "find"}
EDITORS = {"mkdir", "touch", "cp", "mv", "rm", "rmdir", "tee", "truncate"}
# Commands that run code the guard cannot read: an arm asking for one is refused.
RUNS_CODE = {"sh", "bash", "zsh", "dash", "ksh", "fish", "eval", "exec", "source", ".", "env", "sudo", "su",
             "python", "python3", "python2", "node", "perl", "ruby", "php", "lua", "awk", "gawk", "mawk", "sed",
             "xargs", "nohup", "timeout", "nice", "command", "builtin", "time", "watch", "parallel", "ssh", "scp",
             "curl", "wget", "nc", "socat", "osascript", "make", "npm", "npx", "yarn", "pip", "uv", "docker"}
# git subcommands that change nothing outside the repository they run in (no config, no remotes, no hooks
# installed: the world's own .git is checked separately).
GIT_SAFE = {"status", "diff", "log", "show", "add", "commit", "rm", "mv", "restore", "checkout", "switch", "branch",
            "reset", "stash", "init", "ls-files", "rev-parse", "blame", "grep", "tag", "shortlog", "describe",
            "cat-file", "ls-tree", "merge", "rebase", "cherry-pick", "revert", "apply", "am", "format-patch",
            "whatchanged", "reflog", "clean", "notes"}
GIT_OPTIONS_OUT = ("-c", "--exec-path", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix")
FIND_RUNS = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
FOLLOWS_LINKS = {"-R", "--dereference-recursive", "-L", "--follow", "-follow"}
OPERATORS = {"&&", "||", ";", "|", "&", "\n"}
REDIRECTS = {">", ">>", "<", ">|", "&>", "&>>", ">&", "<&", "2>", "2>>"}
SPECIALS = ("$", "`", "<(", ">(", "<<")
COUNT_OPTIONS = {"-n", "-A", "-B", "-C", "-m", "-w", "-c", "-k", "-N", "--lines", "--bytes", "--width"}
DEVICES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin"}


@frozen
class Decision:
    kind: str  # allow | deny | ask
    reason: str


@frozen
class Confinement:
    """Where one arm may work: its world (read and write) and its skill copy (read only)."""

    world: str
    copy: Optional[str] = None
    # Symlinks under the world that resolve outside it (a recursive tool that follows links would read there).
    outside_links: tuple[str, ...] = ()
    # Why git may not run in the world (its .git holds hooks or settings that run programs), or "".
    git_unsafe: str = ""


def inside(path: str, folder: Optional[str]) -> bool:
    return bool(folder) and (path == folder or path.startswith(folder.rstrip("/") + "/"))


class Rules:
    """The rules for one arm, with the file system reached through ``resolve`` and ``expand``."""

    def __init__(self, c: Confinement, resolve: Callable[[str], str] = os.path.realpath,
                 expand: Callable[[str], list] = lambda p: globmod.glob(p, recursive=True)):
        self.c = c
        self.resolve = resolve
        self.expand = expand
        self.world = resolve(c.world)
        self.copy = resolve(c.copy) if c.copy else None

    # ------------------------------------------------------------------ paths
    def where(self, path: str, cwd: Optional[str]) -> Optional[str]:
        """The resolved absolute path, or None when a relative path has no known folder to start from."""
        if not os.path.isabs(path):
            if cwd is None:
                return None
            path = os.path.join(cwd, path)
        return self.resolve(os.path.normpath(path))

    def check_path(self, path: str, cwd: Optional[str], write: bool) -> Optional[Decision]:
        """None when ``path`` may be used; otherwise the refusal."""
        if path in DEVICES:
            return None
        if path.startswith("~"):
            return Decision(DENY, f"{path!r} names the home folder; this task works only in {self.c.world}")
        real = self.where(path, cwd)
        if real is None:
            return Decision(DENY, f"the relative path {path!r} has no known folder; start the command with "
                                  f"cd {self.c.world} && (this task works only in {self.c.world})")
        if inside(real, self.world):
            rel = real[len(self.world):].lstrip("/")
            if write and (rel == ".git" or rel.startswith(".git/")):
                return Decision(DENY, f"{path} is inside the world's .git folder; change files through git commands")
            return None
        if inside(real, self.copy):
            if write:
                return Decision(DENY, f"{path} is in the skill copy, which is read-only; work in {self.c.world}")
            return None
        shown = path if real == path else f"{path} (which is {real})"
        return Decision(DENY, f"{shown} is outside this task's folders; work only in {self.c.world}"
                              + (f" and read the skill at {self.c.copy}" if self.c.copy else ""))

    def check_glob(self, pattern: str, cwd: Optional[str], write: bool) -> Optional[Decision]:
        """A glob is checked by its fixed part and by every file it matches now."""
        fixed = pattern.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
        if ".." in pattern.split("/"):
            return Decision(DENY, f"the pattern {pattern!r} climbs out with '..'; work only in {self.c.world}")
        base = fixed if fixed.endswith("/") or not fixed else os.path.dirname(fixed) or "."
        refused = self.check_path(base.rstrip("/") or "/", cwd, write)
        if refused:
            return refused
        start = pattern if os.path.isabs(pattern) else os.path.join(cwd or "", pattern)
        for hit in self.expand(start):
            refused = self.check_path(hit, cwd, write)
            if refused:
                return refused
        return None

    # ------------------------------------------------------------------ file tools
    def file_tool(self, name: str, data: dict) -> Decision:
        field = FILE_TOOLS[name]
        path = data.get(field)
        write = name in WRITE_TOOLS
        if name in ("Glob", "Grep"):
            if not path:
                return Decision(DENY, f"{name} without a path searches the user's project; pass path: {self.c.world}")
            pattern = data.get("pattern" if name == "Glob" else "glob")
            if isinstance(pattern, str) and (os.path.isabs(pattern) or ".." in pattern.split("/")):
                refused = self.check_glob(pattern, path if isinstance(path, str) else None, False)
                if refused:
                    return refused
        if not isinstance(path, str) or not path:
            return Decision(DENY, f"{name} names no path; this task works only in {self.c.world}")
        refused = self.check_path(path, None, write)
        if refused:
            return refused
        return Decision(ALLOW, f"{name} inside the task's folders")

    def resolved(self, name: str, data: dict) -> dict:
        """The input of an allowed file-tool call with its path replaced by the one the check resolved (every
        symlink followed), so Claude Code opens exactly what was checked: a link in the world swapped after
        the check cannot send the call elsewhere. A path in the world that is itself a link into the world or
        the copy is allowed and given as its target; one that leads outside was refused by the check."""
        field = FILE_TOOLS[name]
        path = data.get(field)
        if not isinstance(path, str) or not path or path in DEVICES:
            return dict(data)
        real = self.where(path, None)
        return dict(data) if real is None else dict(data, **{field: real})

    # ------------------------------------------------------------------ bash
    def bash(self, command: str) -> Decision:
        for s in SPECIALS:
            if s in command:
                return Decision(DENY, f"the command uses {s!r}, which the guard cannot follow; write it without "
                                      "variables, substitutions or here-documents")
        try:
            # A newline ends a command as ';' does (inside quotes the change only makes the check stricter).
            lex = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|<>()")
            lex.whitespace_split = True
            lex.commenters = ""
            tokens = list(lex)
        except ValueError as exc:
            return Decision(ASK, f"the command could not be parsed ({exc})")
        cwd: Optional[str] = None
        for segment, redirects in _segments(tokens):
            if not segment and not redirects:
                continue
            if not segment:
                return Decision(ASK, "a redirection without a command")
            if any(t in ("(", ")", "{", "}") for t in segment):
                return Decision(ASK, "subshells and groups are not followed by the guard")
            refused, cwd = self.segment(segment, redirects, cwd)
            if refused:
                return refused
        return Decision(ALLOW, "every part of the command stays inside the task's folders")

    def segment(self, words: list, redirects: list, cwd: Optional[str]) -> tuple[Optional[Decision], Optional[str]]:
        name = words[0]
        if "=" in name and not name.startswith("="):
            return Decision(DENY, f"setting the environment ({name}) is not allowed for an arm"), cwd
        base = os.path.basename(name)
        if name != base and base in READERS | EDITORS | {"git", "cd"}:
            return Decision(ASK, f"{name} is run by its path, which the guard does not trust"), cwd
        if name == "cd":
            if len(words) != 2:
                return Decision(DENY, f"cd needs exactly one folder inside {self.c.world}"), cwd
            target = words[1]
            refused = self.check_path(target, cwd, False)
            if refused:
                return refused, cwd
            real = self.where(target, cwd)
            if not inside(real, self.world):
                return Decision(DENY, f"cd {target} leaves the world; work in {self.c.world}"), cwd
            return None, real
        for target in redirects:
            if target.isdigit() or target == "-":
                continue
            refused = self._operand(target, cwd, True)
            if refused:
                return refused, cwd
        if base in RUNS_CODE:
            return Decision(DENY, f"{base} runs code the guard cannot check; arms run plain tools in their world"), cwd
        if base == "git":
            return self.git(words, cwd), cwd
        if base not in READERS and base not in EDITORS:
            return Decision(ASK, f"{base} is not among the commands the guard knows to stay inside"), cwd
        if base == "find" and any(w in FIND_RUNS for w in words):
            return Decision(DENY, "find with -exec, -delete or -fprint runs or writes beyond what the guard checks"), cwd
        if base in ("echo", "printf", "true", "false", "pwd"):
            return None, cwd  # their words are data, never read as paths
        follows = any(w in FOLLOWS_LINKS for w in words) or (base == "find" and "-L" in words)
        if follows and self.c.outside_links:
            return Decision(DENY, f"{base} would follow the world's links that point outside "
                                  f"({self.c.outside_links[0]})"), cwd
        write = base in EDITORS
        operands = _operands(base, words[1:])
        if not operands and base in ("ls", "find", "grep", "rg", "du", "tree") and cwd is None:
            return Decision(DENY, f"{base} without a path works in the user's project; name a path in "
                                  f"{self.c.world}"), cwd
        for w in operands:
            refused = self._operand(w, cwd, write)
            if refused:
                return refused, cwd
        return None, cwd

    def _operand(self, word: str, cwd: Optional[str], write: bool) -> Optional[Decision]:
        if word.startswith("-"):
            value = word.split("=", 1)[1] if "=" in word else ""
            if "/" in word and not value:
                return Decision(ASK, f"the option {word!r} may name a path the guard cannot tell")
            word = value
            if not word:
                return None
        if any(ch in word for ch in "*?["):
            return self.check_glob(word, cwd, write)
        return self.check_path(word, cwd, write)

    def git(self, words: list, cwd: Optional[str]) -> Optional[Decision]:
        i, here = 1, cwd
        while i < len(words) and words[i].startswith("-"):
            w = words[i]
            if w == "-C" and i + 1 < len(words):
                refused = self.check_path(words[i + 1], here, False)
                if refused:
                    return refused
                here = self.where(words[i + 1], here)
                if not inside(here, self.world):
                    return Decision(DENY, f"git -C {words[i + 1]} works outside the world")
                i += 2
                continue
            if w.startswith(GIT_OPTIONS_OUT):
                return Decision(DENY, f"git {w} could run or reach beyond the world")
            i += 1
        if here is None:
            return Decision(DENY, f"git without -C runs in the user's project; use git -C {self.c.world} ...")
        if not inside(here, self.world):
            return Decision(DENY, f"git runs outside the world; use git -C {self.c.world} ...")
        if self.c.git_unsafe:
            return Decision(ASK, f"the world's git would run programs of its own ({self.c.git_unsafe})")
        sub = words[i] if i < len(words) else ""
        if sub not in GIT_SAFE:
            return Decision(ASK, f"git {sub or '(no subcommand)'} is not among the git commands the guard allows")
        for w in words[i + 1:]:
            if w.startswith("--output") or w in ("--no-index", "--exec", "-x", "--ext-diff", "--textconv"):
                return Decision(DENY, f"git {sub} {w} could reach or run beyond the world")
        for w in words[i + 1:]:
            if w.startswith("/") or ".." in w.split("/") or (w.startswith("-") and "=/" in w):
                refused = self._operand(w, here, False)
                if refused:
                    return refused
        return None


def _segments(tokens: list) -> Iterable[tuple[list, list]]:
    """Split shell tokens at operators; each segment's words and its redirection targets."""
    words: list = []
    targets: list = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in OPERATORS or (t and set(t) <= set(";&|") and t not in REDIRECTS):
            yield words, targets
            words, targets = [], []
        elif t in REDIRECTS or (t and set(t) <= set("<>&") and t):
            if words and words[-1].isdigit():
                words.pop()  # the file descriptor of 2> and the like
            if i + 1 < len(tokens):
                targets.append(tokens[i + 1])
            i += 1
        else:
            words.append(t)
        i += 1
    yield words, targets


def _operands(base: str, args: list) -> list:
    """The words of a command that may be paths: all but options (and the pattern of grep-likes)."""
    out = []
    for i, a in enumerate(args):
        # A count after an option that takes one (head -n 5, grep -A 3, fold -w 15) is not a path.
        if a == "--" or (a.isdigit() and i and args[i - 1] in COUNT_OPTIONS):
            continue
        out.append(a)
    if base in ("grep", "egrep", "fgrep", "rg") and not any(a in ("-e", "-f") or a.startswith(("-e", "--regexp"))
                                                          for a in args):
        plain = [a for a in out if not a.startswith("-")]
        if plain:
            out.remove(plain[0])
    if base == "tr":
        return []
    if base == "find":
        # find's paths come before its first expression word; expression values are names, not paths.
        paths = []
        for a in out:
            if a.startswith(("-", "(", "!")):
                break
            paths.append(a)
        return paths
    return out
