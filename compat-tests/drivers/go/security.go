package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// securitySettings is COMPAT_SECURITY (PROTOCOL.md): how a secured scenario's driver connects.
type securitySettings struct {
	Protocol  string  `json:"protocol"`
	Mechanism *string `json:"mechanism"`
	Username  *string `json:"username"`
	Password  *string `json:"password"`
	Token     *string `json:"token"`
	CA        *string `json:"ca"`
	Cert      *string `json:"cert"`
	Key       *string `json:"key"`
}

// securityOpts are the client options of COMPAT_SECURITY, added to every client the driver makes
// (newClient); nil when the variable is absent (plaintext).
var securityOpts = mustSecurityOpts()

func mustSecurityOpts() []kgo.Opt {
	opts, err := loadSecurityOpts(os.Getenv("COMPAT_SECURITY"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "COMPAT_SECURITY:", err)
		os.Exit(2)
	}
	return opts
}

func loadSecurityOpts(text string) ([]kgo.Opt, error) {
	if text == "" {
		return nil, nil
	}
	var s securitySettings
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, err
	}
	var opts []kgo.Opt
	if s.CA != nil {
		pem, err := os.ReadFile(*s.CA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", *s.CA)
		}
		cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		if s.Cert != nil && s.Key != nil {
			pair, err := tls.LoadX509KeyPair(*s.Cert, *s.Key)
			if err != nil {
				return nil, err
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if s.Mechanism == nil {
		return opts, nil
	}
	user, pass := deref(s.Username), deref(s.Password)
	switch *s.Mechanism {
	case "PLAIN":
		opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	case "SCRAM-SHA-256":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
	case "SCRAM-SHA-512":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
	case "OAUTHBEARER":
		opts = append(opts, kgo.SASL(oauth.Auth{Token: deref(s.Token)}.AsMechanism()))
	default:
		return nil, fmt.Errorf("unknown SASL mechanism %s", *s.Mechanism)
	}
	return opts, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// newClient is kgo.NewClient with the driver's security options.
func newClient(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append(opts, securityOpts...)...)
}

// newGroupTransactSession is kgo.NewGroupTransactSession with the driver's security options.
func newGroupTransactSession(opts ...kgo.Opt) (*kgo.GroupTransactSession, error) {
	return kgo.NewGroupTransactSession(append(opts, securityOpts...)...)
}
