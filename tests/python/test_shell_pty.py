"""`keywise shell` driven through a pseudo-terminal, as a user types: the
prompt follows USE, statements span lines until `;`, Ctrl-C drops the
statement being typed, errors print as cqlsh prints them, history persists,
Ctrl-D exits."""

import contextlib
import fcntl
import os
import pty
import re
import select
import subprocess
import tempfile
import termios
import time

from conftest import ROOT


class Pty:
    def __init__(self, args, env):
        self.master, slave = pty.openpty()
        # A new session whose controlling terminal is the pty, as in a real
        # terminal: Ctrl-C then becomes SIGINT for the shell.
        def controlling_tty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave,
                                     stderr=slave, env=env, close_fds=True,
                                     preexec_fn=controlling_tty)
        os.close(slave)
        self.buffer = ""

    def send(self, text):
        os.write(self.master, text.encode())

    def expect(self, pattern, timeout=10):
        """Reads until `pattern` (a regex) appears; returns the text before
        and including the match, and keeps the rest."""
        deadline = time.time() + timeout
        regex = re.compile(pattern)
        while True:
            m = regex.search(self.buffer)
            if m:
                seen = self.buffer[:m.end()]
                self.buffer = self.buffer[m.end():]
                return seen
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("timed out waiting for %r; got:\n%s"
                                     % (pattern, self.buffer))
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    data = b""
                if not data:
                    raise AssertionError("shell exited waiting for %r; got:\n%s"
                                         % (pattern, self.buffer))
                self.buffer += data.decode("utf-8", "replace")

    def run(self, line, prompt=r"keywise> "):
        """Types `line` and Enter; returns the output up to `prompt`."""
        self.send(line + "\r")
        return self.expect(prompt)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self.master)


@contextlib.contextmanager
def shell_session(node, **env):
    """`keywise shell` on a pty with a fresh $HOME, at its first prompt;
    yields (shell, home) and kills the shell if it is still running."""
    binary = os.environ.get("KEYWISE_BIN", str(ROOT / "build" / "keywise"))
    with tempfile.TemporaryDirectory() as home:
        shell = Pty([binary, "shell", "127.0.0.1", str(node.port)],
                    dict(os.environ, HOME=home, TERM="xterm", **env))
        try:
            shell.expect(r"keywise> ")
            yield shell, home
        finally:
            shell.close()


def test_interactive_session(node):
    with shell_session(node) as (shell, home):
        shell.run("CREATE KEYSPACE pty WITH replication = "
                  "{'class': 'SimpleStrategy', 'replication_factor': 1};")
        shell.run("USE pty;", r"keywise:pty> ")
        # A statement over two lines: the continuation prompt, then the
        # keyspace prompt again once `;` ends it.
        shell.send("CREATE TABLE t (a int PRIMARY KEY,\r")
        shell.expect(r"\.\.\. ")
        shell.send("b text);\r")
        shell.expect(r"keywise:pty> ")
        shell.run("INSERT INTO t (a, b) VALUES (1, 'x');", r"keywise:pty> ")
        out = shell.run("SELECT * FROM t;", r"keywise:pty> ")
        assert re.search(r"\ba \| b\b", out), out
        assert re.search(r"-+\+-+", out), out
        assert re.search(r"1 \| x", out), out
        assert "(1 rows)" in out, out
        # Ctrl-C drops the half-typed statement.
        shell.send("SELECT * FR")
        shell.send("\x03")
        shell.expect(r"keywise:pty> ")
        out = shell.run("SELECT count(*) FROM t;", r"keywise:pty> ")
        assert "SyntaxException" not in out, out
        assert "(1 rows)" in out, out
        out = shell.run("SELECT * FROM nope;", r"keywise:pty> ")
        assert ('InvalidRequest: Error from server: code=2200 '
                '[Invalid query] message="unconfigured table nope"') in out, out
        # PAGING 2: the third row waits for ---MORE---.
        shell.run("INSERT INTO t (a, b) VALUES (2, 'y');", r"keywise:pty> ")
        shell.run("INSERT INTO t (a, b) VALUES (3, 'z');", r"keywise:pty> ")
        shell.run("PAGING 2;", r"keywise:pty> ")
        shell.run("SELECT a FROM t;", r"---MORE---")
        out = shell.run("", r"keywise:pty> ")
        assert "(3 rows)" in out, out
        # Ctrl-D on an empty line exits cleanly.
        shell.send("\x04")
        assert shell.proc.wait(timeout=10) == 0
        # libedit's history file escapes blanks as \040.
        history = open(os.path.join(home, ".keywise_history")).read()
        assert "SELECT * FROM t;" in history.replace("\\040", " ")


def test_non_ascii_keys_in_a_c_locale(node):
    """Typed UTF-8 reaches the server intact even when the environment names
    no locale (LANG=C), and comes back in the result."""
    with shell_session(node, LANG="C", LC_ALL="C") as (shell, _):
        shell.run("CREATE KEYSPACE ptyu WITH replication = "
                  "{'class': 'SimpleStrategy', 'replication_factor': 1};")
        shell.run("CREATE TABLE ptyu.t (a int PRIMARY KEY, b text);")
        shell.run("INSERT INTO ptyu.t (a, b) VALUES (1, 'héllo wörld ✓');")
        out = shell.run("SELECT b FROM ptyu.t WHERE a = 1;")
        assert "héllo wörld ✓" in out.split("\n", 1)[1], out
        assert "(1 rows)" in out, out
        shell.send("\x04")
        assert shell.proc.wait(timeout=10) == 0
