#include "net/stream.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <functional>

#include "net/tls_context.h"
#include "net/tls_test_util.h"
#include "testing/temp_dir.h"

namespace keywise::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;
using testing::CertKind;
using testing::MakeTestCert;
using testing::TestCert;
using testing::WriteTestFile;

// One server connection and one client connection over loopback, run on
// one io_context. The server peeks, handshakes when the client speaks TLS,
// and echoes one message.
class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = MakeTestCert("Test CA", CertKind::kCa, nullptr);
    const TestCert node = MakeTestCert("node", CertKind::kLeaf, &ca_);
    const TestCert client = MakeTestCert("client", CertKind::kLeaf, &ca_);
    WriteTestFile(Path("ca.pem"), ca_.cert_pem);
    WriteTestFile(Path("node.pem"), node.key_pem + node.cert_pem);
    WriteTestFile(Path("client.pem"), client.key_pem + client.cert_pem);
    const TestCert other_ca = MakeTestCert("Other CA", CertKind::kCa, nullptr);
    WriteTestFile(Path("other_ca.pem"), other_ca.cert_pem);
  }
  std::string Path(const std::string& name) const {
    return dir_.str() + "/" + name;
  }
  std::shared_ptr<asio::ssl::context> Server(bool client_auth) {
    TlsOptions o;
    o.enabled = true;
    o.keystore = Path("node.pem");
    o.truststore = Path("ca.pem");
    o.require_client_auth = client_auth;
    Result<ServerTlsContext> built = BuildServerTlsContext(o, "test");
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return built->context;
  }
  std::shared_ptr<asio::ssl::context> Client(const std::string& ca,
                                             const std::string& cert) {
    ClientTlsOptions o;
    o.ca = ca;
    o.cert = cert;
    auto built = BuildClientTlsContext(o);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return *built;
  }

  struct Outcome {
    bool server_saw_tls = false;
    std::string server_error;  // of the handshake or read
    std::string client_error;
    std::string echoed;
    std::string server_end;  // how the read after the echo ended
    std::string client_end;  // the error of the client's TLS shutdown
  };

  // Connects a client (TLS with `client_ctx`, plain when null) to a server
  // with `server_ctx`, sends "hello" and reads the echo.
  Outcome Exchange(std::shared_ptr<asio::ssl::context> server_ctx,
                   std::shared_ptr<asio::ssl::context> client_ctx) {
    asio::io_context io;
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    Outcome out;
    tcp::socket server_socket(io), client_socket(io);
    Stream server(std::move(server_socket));
    Stream client(std::move(client_socket));
    std::string server_buf(5, '\0'), client_buf(5, '\0');

    auto close_server = [&] {
      error_code ignored;
      server.Close(ignored);
    };
    // After the echo the server reads on: the client's close (its
    // close_notify under TLS) ends that read, and the server answers it.
    std::function<void()> read_end = [&] {
      server.AsyncReadSome(asio::buffer(server_buf), [&](error_code ec,
                                                         size_t) {
        if (!ec) return read_end();
        out.server_end = ec.message();
        if (!server.tls()) return close_server();
        server.AsyncShutdown([&](error_code) { close_server(); });
      });
    };
    auto echo = [&] {
      server.AsyncReadSome(asio::buffer(server_buf), [&](error_code ec,
                                                         size_t n) {
        if (ec) {
          out.server_error = ec.message();
          return close_server();
        }
        server.AsyncWrite(asio::buffer(server_buf.data(), n),
                          [&](error_code, size_t) { read_end(); });
      });
    };
    acceptor.async_accept(server.socket(), [&](error_code ec) {
      ASSERT_FALSE(ec);
      server.AsyncPeekTls([&](error_code ec, bool tls) {
        ASSERT_FALSE(ec);
        if (!tls) return echo();
        out.server_saw_tls = true;
        server.UseTls(server_ctx);
        server.AsyncHandshake(asio::ssl::stream_base::server,
                              [&](error_code ec) {
                                if (ec) {
                                  out.server_error = ec.message();
                                  return close_server();
                                }
                                echo();
                              });
      });
    });
    auto close_client = [&] {
      error_code ignored;
      client.Close(ignored);
    };
    client.socket().async_connect(acceptor.local_endpoint(), [&](error_code ec) {
      ASSERT_FALSE(ec);
      auto talk = [&] {
        client.AsyncWrite(asio::buffer(std::string_view("hello")),
                          [&](error_code ec, size_t) {
                            if (ec) out.client_error = ec.message();
                          });
        asio::async_read(client.socket(), asio::buffer(client_buf),
                         [&](error_code, size_t) { close_client(); });
      };
      if (client_ctx == nullptr) return talk();
      client.UseTls(client_ctx);
      client.SetServerName("127.0.0.1");
      client.AsyncHandshake(asio::ssl::stream_base::client, [&](error_code ec) {
        if (ec) {
          out.client_error = ec.message();
          return close_client();
        }
        client.AsyncWrite(asio::buffer(std::string_view("hello")),
                          [&](error_code ec, size_t) {
                            if (ec) out.client_error = ec.message();
                          });
        client.AsyncReadSome(asio::buffer(client_buf),
                             [&](error_code ec, size_t n) {
                               if (ec) {
                                 out.client_error = ec.message();
                                 return close_client();
                               }
                               out.echoed = client_buf.substr(0, n);
                               client.AsyncShutdown([&](error_code ec) {
                                 if (ec) out.client_end = ec.message();
                                 close_client();
                               });
                             });
      });
    });
    io.run_for(std::chrono::seconds(10));
    if (client_ctx == nullptr) out.echoed = client_buf;
    return out;
  }

  keywise::testing::TempDir dir_;
  TestCert ca_;
};

TEST_F(StreamTest, PlainPeersSkipTls) {
  const Outcome out = Exchange(Server(false), nullptr);
  EXPECT_FALSE(out.server_saw_tls);
  EXPECT_EQ(out.echoed, "hello");
  EXPECT_EQ(out.server_end, "End of file");
}

TEST_F(StreamTest, TlsRoundTrip) {
  const Outcome out = Exchange(Server(false), Client(Path("ca.pem"), ""));
  EXPECT_TRUE(out.server_saw_tls);
  EXPECT_EQ(out.client_error, "");
  EXPECT_EQ(out.server_error, "");
  EXPECT_EQ(out.echoed, "hello");
  // The client's close_notify reads as the end of the stream, and the
  // server's answers the client's shutdown.
  EXPECT_EQ(out.server_end, "End of file");
  EXPECT_EQ(out.client_end, "");
}

TEST_F(StreamTest, ClientRefusesAnUnknownCa) {
  const Outcome out =
      Exchange(Server(false), Client(Path("other_ca.pem"), ""));
  EXPECT_NE(out.client_error.find("certificate verify failed"),
            std::string::npos)
      << out.client_error;
  EXPECT_EQ(out.echoed, "");
}

TEST_F(StreamTest, ClientCertificateRequired) {
  Outcome out = Exchange(Server(true), Client(Path("ca.pem"), ""));
  EXPECT_EQ(out.echoed, "");
  EXPECT_NE(out.server_error.find("peer did not return a certificate"),
            std::string::npos)
      << out.server_error;
  out = Exchange(Server(true),
                 Client(Path("ca.pem"), Path("client.pem")));
  EXPECT_EQ(out.echoed, "hello");
}

}  // namespace
}  // namespace keywise::net
