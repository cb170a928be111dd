// Package fakemonitoring is an in-process fake of Cloud Monitoring's
// MetricService, for tests: it keeps the CreateServiceTimeSeries requests
// it receives (internal/nativemetrics's export) and answers the others
// Unimplemented. It knows nothing of the driver.
package fakemonitoring
