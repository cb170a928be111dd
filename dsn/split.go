package dsn

// Parts is a DSN taken apart as go-sql-spanner's ExtractConnectorConfig
// reports it: the host, the database path and the properties as written.
type Parts struct {
	// Host is the DSN's HOST[:PORT] ("" when it names none); an endpoint=
	// property is among Params, and wins.
	Host                        string
	Project, Instance, Database string
	// Params maps each key in lower case, as written, to its value (the
	// native form's last one, a URL's first one). A URL's sslmode is not
	// there: it is said as useplaintext=true when it is disable and the
	// URL does not set use_plain_text (go-sql-spanner adds the same entry).
	Params map[string]string
}

// Split takes the DSN s apart. It fails where Parse fails, with the same
// errors: the parts always make a valid configuration.
func Split(s string) (Parts, error) {
	pt, err := split(s)
	if err != nil {
		return Parts{}, err
	}
	if _, err := pt.config(); err != nil {
		return Parts{}, err
	}
	return Parts{Host: pt.host, Project: pt.project, Instance: pt.instance, Database: pt.database, Params: pt.params}, nil
}
