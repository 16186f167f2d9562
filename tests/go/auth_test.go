package keywisego

// PasswordAuthenticator through gocql (docs/security.md): its
// PasswordAuthenticator logs in as the default superuser (gocql checks the
// authenticator's class name the server sends), a wrong password fails
// with Cassandra's message, and a role created over CQL logs in.

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func authSession(port int, user, password string) (*gocql.Session, error) {
	cluster := gocql.NewCluster("127.0.0.1")
	cluster.Port = port
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.DisableInitialHostLookup = true
	cluster.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
	return cluster.CreateSession()
}

func TestPasswordAuthenticator(t *testing.T) {
	n, port, err := startNode("authenticator: PasswordAuthenticator\n" +
		"auth_bcrypt_gensalt_log2_rounds: 4\n")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if exited, status := n.stop(); exited || status != 0 {
			t.Errorf("node exited early (%v) or with status %d:\n%s", exited, status, n.tail(4000))
		}
		os.RemoveAll(n.dir)
	}()

	session, err := authSession(port, "cassandra", "cassandra")
	if err != nil {
		t.Fatalf("login as cassandra: %v", err)
	}
	var role string
	if err := session.Query("SELECT role FROM system_auth.roles").Scan(&role); err != nil || role != "cassandra" {
		t.Fatalf("system_auth.roles: %q, %v", role, err)
	}
	if err := session.Query("CREATE ROLE gopher WITH PASSWORD = 'g' AND LOGIN = true").Exec(); err != nil {
		t.Fatalf("CREATE ROLE: %v", err)
	}
	session.Close()

	if _, err := authSession(port, "cassandra", "wrong"); err == nil ||
		!strings.Contains(err.Error(), "Provided username cassandra and/or password are incorrect") {
		t.Fatalf("wrong password: %v", err)
	}
	gopher, err := authSession(port, "gopher", "g")
	if err != nil {
		t.Fatalf("login as gopher: %v", err)
	}
	defer gopher.Close()
	var version string
	if err := gopher.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		t.Fatalf("gopher's query: %v", err)
	}
}
