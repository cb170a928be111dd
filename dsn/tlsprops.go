package dsn

// checkTLSProperties refuses the combinations of is_experimental_host,
// ca_cert_file, client_cert_file and client_cert_key that go-sql-spanner
// would silently ignore or cannot honour, so that a property given always
// does what it says and plain text is never used in place of TLS.
func checkTLSProperties(c *Config) *Error {
	if c.IsExperimentalHost && c.Endpoint == "" {
		return invalid("is_experimental_host", "true", "an experimental host needs an endpoint (HOST[:PORT]/ prefix or endpoint=)")
	}
	named := func(key, v string) *Error {
		if v != "" && !c.IsExperimentalHost {
			return invalid(key, v, "applies only with is_experimental_host=true")
		}
		return nil
	}
	for _, p := range []struct{ key, v string }{
		{"ca_cert_file", c.CACertFile}, {"client_cert_file", c.ClientCertFile}, {"client_cert_key", c.ClientCertKey},
	} {
		if err := named(p.key, p.v); err != nil {
			return err
		}
	}
	if (c.ClientCertFile == "") != (c.ClientCertKey == "") {
		if c.ClientCertFile == "" {
			return invalid("client_cert_key", c.ClientCertKey, "needs client_cert_file as well (mutual TLS takes both)")
		}
		return invalid("client_cert_file", c.ClientCertFile, "needs client_cert_key as well (mutual TLS takes both)")
	}
	if c.ClientCertFile != "" && c.CACertFile == "" {
		return invalid("client_cert_file", c.ClientCertFile, "needs ca_cert_file (mutual TLS verifies the endpoint with it)")
	}
	if c.CACertFile != "" && (c.UsePlainText || c.AutoConfigEmulator) {
		return invalid("ca_cert_file", c.CACertFile, "conflicts with use_plain_text/auto_config_emulator: TLS was asked for")
	}
	return nil
}
