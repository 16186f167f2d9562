package keywisego

// PasswordAuthenticator through gocql (docs/security.md): its
// PasswordAuthenticator logs in as the default superuser (gocql checks the
// authenticator's class name the server sends), a wrong password fails
// with Cassandra's message, and a role created over CQL logs in.

import (
	"errors"
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
	port := startTestNode(t, "authenticator: PasswordAuthenticator\n"+
		"auth_bcrypt_gensalt_log2_rounds: 4\n")

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

// CassandraAuthorizer through gocql: a role reads only what it was
// granted, a refusal is gocql's RequestErrUnauthorized with Cassandra's
// message, and a prepared statement is checked again after a REVOKE.
func TestCassandraAuthorizer(t *testing.T) {
	port := startTestNode(t, "authenticator: PasswordAuthenticator\n"+
		"authorizer: CassandraAuthorizer\n"+
		"auth_bcrypt_gensalt_log2_rounds: 4\n")
	root, err := authSession(port, "cassandra", "cassandra")
	if err != nil {
		t.Fatalf("login as cassandra: %v", err)
	}
	defer root.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE gz WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE gz.t (k int PRIMARY KEY, v int)",
		"INSERT INTO gz.t (k, v) VALUES (1, 7)",
		"CREATE ROLE reader WITH PASSWORD = 'r' AND LOGIN = true",
		"GRANT SELECT ON TABLE gz.t TO reader",
	} {
		if err := root.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	reader, err := authSession(port, "reader", "r")
	if err != nil {
		t.Fatalf("login as reader: %v", err)
	}
	defer reader.Close()
	var v int
	if err := reader.Query("SELECT v FROM gz.t WHERE k = ?", 1).Scan(&v); err != nil || v != 7 {
		t.Fatalf("granted read: %d, %v", v, err)
	}
	err = reader.Query("INSERT INTO gz.t (k, v) VALUES (2, 2)").Exec()
	if !isUnauthorized(err) ||
		!strings.Contains(err.Error(), "User reader has no MODIFY permission on <table gz.t> or any of its parents") {
		t.Fatalf("write without MODIFY: %T %v", err, err)
	}
	if err := root.Query("REVOKE SELECT ON TABLE gz.t FROM reader").Exec(); err != nil {
		t.Fatalf("REVOKE: %v", err)
	}
	// gocql prepares the statement above once; its next execution is refused.
	err = reader.Query("SELECT v FROM gz.t WHERE k = ?", 1).Scan(&v)
	if !isUnauthorized(err) {
		t.Fatalf("read after REVOKE: %T %v", err, err)
	}
}

// Whether err is the server's Unauthorized error (code 0x2100).
func isUnauthorized(err error) bool {
	var request gocql.RequestError
	return errors.As(err, &request) && request.Code() == gocql.ErrCodeUnauthorized
}
