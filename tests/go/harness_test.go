// The harness: TestMain starts one Keywise node for the whole package (a
// free port, a fresh data directory, an empty keywise.yaml) and stops it
// after the tests, failing the run if the node died or exited non-zero.
// The binary is $KEYWISE_BIN, else build/keywise under the repository root.
// With $KEYWISE_CONTACT=host:port the tests use that server instead (for
// example an Apache Cassandra 4 node) and start nothing. With
// $KEYWISE_KEEP_LOGS set the node's directory (its log) is kept and named.
package keywisego

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// The server the tests connect to.
var contactHost = "127.0.0.1"
var contactPort int

type node struct {
	dir  string
	cmd  *exec.Cmd
	log  *os.File
	done chan error
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if addr := os.Getenv("KEYWISE_CONTACT"); addr != "" {
		host, port, err := net.SplitHostPort(addr)
		if err == nil {
			contactPort, err = strconv.Atoi(port)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "KEYWISE_CONTACT=%q: want host:port\n", addr)
			return 1
		}
		contactHost = host
		return m.Run()
	}
	n, port, err := startNode("")
	contactPort = port
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if exited, status := n.stop(); exited {
		fmt.Fprintln(os.Stderr, "the node died during the tests")
		code = 1
	} else if status != 0 {
		fmt.Fprintf(os.Stderr, "the node exited with status %d on SIGTERM\n", status)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "node log:\n%s\n", n.tail(8000))
	}
	if os.Getenv("KEYWISE_KEEP_LOGS") != "" {
		fmt.Fprintln(os.Stderr, "node log kept in "+n.dir)
	} else {
		os.RemoveAll(n.dir)
	}
	return code
}

func keywiseBinary() string {
	if bin := os.Getenv("KEYWISE_BIN"); bin != "" {
		return bin
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "build", "keywise")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startNode starts a node on 127.0.0.1 and a free port with `config` as its
// keywise.yaml, and waits (30 s at most) until its CQL port accepts
// connections. It returns the port.
func startNode(config string) (*node, int, error) {
	dir, err := os.MkdirTemp("", "keywise-go-")
	if err != nil {
		return nil, 0, err
	}
	configPath := filepath.Join(dir, "keywise.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return nil, 0, err
	}
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	n := &node{dir: dir, done: make(chan error, 1)}
	if n.log, err = os.Create(filepath.Join(dir, "node.log")); err != nil {
		return nil, 0, err
	}
	n.cmd = exec.Command(keywiseBinary(), "server", "--config", configPath,
		"--data-dir", filepath.Join(dir, "data"), "--port", strconv.Itoa(port),
		"--listen-address", "127.0.0.1")
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	if err := n.cmd.Start(); err != nil {
		return nil, 0, err
	}
	go func() { n.done <- n.cmd.Wait() }()
	address := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		select {
		case <-n.done:
			return nil, 0, fmt.Errorf("keywise exited early:\n%s", n.tail(8000))
		default:
		}
		if c, err := net.DialTimeout("tcp", address, time.Second); err == nil {
			c.Close()
			return n, port, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.cmd.Process.Kill()
	<-n.done
	return nil, 0, fmt.Errorf("keywise did not start in 30 s:\n%s", n.tail(8000))
}

// stop sends SIGTERM (SIGKILL after 30 s). It returns whether the node had
// already exited before, and its exit status.
func (n *node) stop() (alreadyExited bool, status int) {
	var err error
	select {
	case err = <-n.done:
		alreadyExited = true
	default:
		n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-n.done:
		case <-time.After(30 * time.Second):
			n.cmd.Process.Kill()
			err = <-n.done
		}
	}
	n.log.Close()
	if err != nil {
		status = -1
		if exit, ok := err.(*exec.ExitError); ok {
			status = exit.ExitCode()
		}
	}
	return alreadyExited, status
}

// tail is the last `limit` bytes of the node's log.
func (n *node) tail(limit int) string {
	data, _ := os.ReadFile(n.log.Name())
	if len(data) > limit {
		data = data[len(data)-limit:]
	}
	return string(data)
}

// connect opens a session on the node (protocol v4, 10 s timeouts), closed
// when the test ends.
func connect(t *testing.T) *gocql.Session {
	t.Helper()
	cluster := gocql.NewCluster(contactHost)
	cluster.Port = contactPort
	cluster.ProtoVersion = 4
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.Quorum
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s:%d: %v", contactHost, contactPort, err)
	}
	t.Cleanup(session.Close)
	return session
}

// freshKeyspace drops and creates keyspace `name` (SimpleStrategy, RF 1).
func freshKeyspace(t *testing.T, s *gocql.Session, name string) {
	t.Helper()
	mustExec(t, s, "DROP KEYSPACE IF EXISTS "+name)
	mustExec(t, s, "CREATE KEYSPACE "+name+" WITH replication = "+
		"{'class': 'SimpleStrategy', 'replication_factor': 1}")
}

// mustExec runs one statement and fails the test on an error.
func mustExec(t *testing.T, s *gocql.Session, stmt string, values ...interface{}) {
	t.Helper()
	if err := s.Query(stmt, values...).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// errorCode is the CQL error code of err, or -1 when err is no server error.
func errorCode(err error) int {
	if e, ok := err.(gocql.RequestError); ok {
		return e.Code()
	}
	return -1
}

// startTestNode starts a node with `config` for the test and stops it when
// the test ends, failing the test if the node exited early or not cleanly.
func startTestNode(t *testing.T, config string) int {
	t.Helper()
	n, port, err := startNode(config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if exited, status := n.stop(); exited || status != 0 {
			t.Errorf("node exited early (%v) or with status %d:\n%s", exited, status, n.tail(4000))
		}
		os.RemoveAll(n.dir)
	})
	return port
}
