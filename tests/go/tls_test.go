package keywisego

// TLS on the CQL port through gocql's SslOpts (docs/security.md, 5.6): a
// node with client_encryption_options and require_client_auth serves a
// client that presents a certificate from the truststore's CA and checks
// the node's, and refuses one without a certificate. The files come from
// tests/make_test_certs.sh (the openssl command).

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func makeTestCerts(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "make_test_certs.sh")
	dir := t.TempDir()
	if out, err := exec.Command("bash", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("make_test_certs.sh: %v\n%s", err, out)
	}
	return dir
}

func tlsSession(port int, opts *gocql.SslOptions) (*gocql.Session, error) {
	cluster := gocql.NewCluster("127.0.0.1")
	cluster.Port = port
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.DisableInitialHostLookup = true
	cluster.SslOpts = opts
	return cluster.CreateSession()
}

func TestTLSWithClientCertificates(t *testing.T) {
	if os.Getenv("KEYWISE_CONTACT") != "" {
		t.Skip("starts its own node")
	}
	certs := makeTestCerts(t)
	port := startTestNode(t, "client_encryption_options:\n"+
		"  enabled: true\n"+
		"  keystore: "+filepath.Join(certs, "node.pem")+"\n"+
		"  truststore: "+filepath.Join(certs, "ca.pem")+"\n"+
		"  require_client_auth: true\n")

	session, err := tlsSession(port, &gocql.SslOptions{
		CaPath:                 filepath.Join(certs, "ca.pem"),
		CertPath:               filepath.Join(certs, "client-cert.pem"),
		KeyPath:                filepath.Join(certs, "client-key.pem"),
		EnableHostVerification: true,
	})
	if err != nil {
		t.Fatalf("TLS with a client certificate: %v", err)
	}
	var version string
	if err := session.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version == "" {
		t.Error("empty release_version")
	}
	session.Close()

	if s, err := tlsSession(port, &gocql.SslOptions{
		CaPath:                 filepath.Join(certs, "ca.pem"),
		EnableHostVerification: true,
	}); err == nil {
		s.Close()
		t.Error("a client without a certificate connected")
	}
	if s, err := tlsSession(port, nil); err == nil {
		s.Close()
		t.Error("a plain client connected to a TLS-only port")
	}
}
