"""`keywise shell` driven through a pseudo-terminal, as a user types: the
prompt follows USE, statements span lines until `;`, Ctrl-C drops the
statement being typed, errors print as cqlsh prints them, history persists,
Ctrl-D exits."""

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

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self.master)


def test_interactive_session(node):
    binary = os.environ.get("KEYWISE_BIN", str(ROOT / "build" / "keywise"))
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, TERM="xterm")
        shell = Pty([binary, "shell", "127.0.0.1", str(node.port)], env)
        try:
            shell.expect(r"keywise> ")
            shell.send("CREATE KEYSPACE pty WITH replication = "
                       "{'class': 'SimpleStrategy', 'replication_factor': 1};\r")
            shell.expect(r"keywise> ")
            shell.send("USE pty;\r")
            shell.expect(r"keywise:pty> ")
            # A statement over two lines: the continuation prompt, then the
            # keyspace prompt again once `;` ends it.
            shell.send("CREATE TABLE t (a int PRIMARY KEY,\r")
            shell.expect(r"\.\.\. ")
            shell.send("b text);\r")
            shell.expect(r"keywise:pty> ")
            shell.send("INSERT INTO t (a, b) VALUES (1, 'x');\r")
            shell.expect(r"keywise:pty> ")
            shell.send("SELECT * FROM t;\r")
            out = shell.expect(r"keywise:pty> ")
            assert re.search(r"\ba \| b\b", out), out
            assert re.search(r"-+\+-+", out), out
            assert re.search(r"1 \| x", out), out
            assert "(1 rows)" in out, out
            # Ctrl-C drops the half-typed statement.
            shell.send("SELECT * FR")
            shell.send("\x03")
            shell.expect(r"keywise:pty> ")
            shell.send("SELECT count(*) FROM t;\r")
            out = shell.expect(r"keywise:pty> ")
            assert "SyntaxException" not in out, out
            assert "(1 rows)" in out, out
            shell.send("SELECT * FROM nope;\r")
            out = shell.expect(r"keywise:pty> ")
            assert ('InvalidRequest: Error from server: code=2200 '
                    '[Invalid query] message="unconfigured table nope"') in out, out
            # PAGING 2: the third row waits for ---MORE---.
            shell.send("INSERT INTO t (a, b) VALUES (2, 'y');\r")
            shell.expect(r"keywise:pty> ")
            shell.send("INSERT INTO t (a, b) VALUES (3, 'z');\r")
            shell.expect(r"keywise:pty> ")
            shell.send("PAGING 2;\r")
            shell.expect(r"keywise:pty> ")
            shell.send("SELECT a FROM t;\r")
            shell.expect(r"---MORE---")
            shell.send("\r")
            out = shell.expect(r"keywise:pty> ")
            assert "(3 rows)" in out, out
            # Ctrl-D on an empty line exits cleanly.
            shell.send("\x04")
            assert shell.proc.wait(timeout=10) == 0
        finally:
            shell.close()
        # libedit's history file escapes blanks as \040.
        history = open(os.path.join(home, ".keywise_history")).read()
        assert "SELECT * FROM t;" in history.replace("\\040", " ")


def test_non_ascii_keys_in_a_c_locale(node):
    """Typed UTF-8 reaches the server intact even when the environment names
    no locale (LANG=C), and comes back in the result."""
    binary = os.environ.get("KEYWISE_BIN", str(ROOT / "build" / "keywise"))
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, TERM="xterm", LANG="C", LC_ALL="C")
        shell = Pty([binary, "shell", "127.0.0.1", str(node.port)], env)
        try:
            shell.expect(r"keywise> ")
            shell.send("CREATE KEYSPACE ptyu WITH replication = "
                       "{'class': 'SimpleStrategy', 'replication_factor': 1};\r")
            shell.expect(r"keywise> ")
            shell.send("CREATE TABLE ptyu.t (a int PRIMARY KEY, b text);\r")
            shell.expect(r"keywise> ")
            shell.send("INSERT INTO ptyu.t (a, b) VALUES (1, 'héllo wörld ✓');\r")
            shell.expect(r"keywise> ")
            shell.send("SELECT b FROM ptyu.t WHERE a = 1;\r")
            out = shell.expect(r"keywise> ")
            assert "héllo wörld ✓" in out.split("\n", 1)[1], out
            assert "(1 rows)" in out, out
            shell.send("\x04")
            assert shell.proc.wait(timeout=10) == 0
        finally:
            shell.close()
