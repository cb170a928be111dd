package nativemetrics

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/contrib/detectors/gcp"
)

// The monitored resource and the labels of the official client's export.
const (
	ResourceType = "spanner_instance_client"

	LabelProject        = "project_id"
	LabelInstance       = "instance_id"
	LabelInstanceConfig = "instance_config"
	LabelLocation       = "location"
	LabelClientHash     = "client_hash"

	LabelClientUID         = "client_uid"
	LabelClientName        = "client_name"
	LabelDatabase          = "database"
	LabelMethod            = "method"
	LabelStatus            = "status"
	LabelDirectPathEnabled = "directpath_enabled"
	LabelDirectPathUsed    = "directpath_used"

	// instanceConfigUnknown is the instance_config the official client
	// sends: it does not look the instance's configuration up.
	instanceConfigUnknown = "unknown"
	// defaultLocation is the location off Google Cloud or undetected.
	defaultLocation = "global"
)

// pointLabels are the metric labels a measurement carries itself (the
// rest are the client's): only these pass from a data point.
var pointLabels = map[string]bool{
	LabelMethod: true, LabelStatus: true, LabelDirectPathEnabled: true, LabelDirectPathUsed: true,
}

// clientLabels are one client's labels: those of its monitored resource and
// the metric labels that do not vary per call.
type clientLabels struct {
	resource map[string]string // without location, known at the first export
	metric   map[string]string
	project  string
}

func newClientLabels(project, instance, database, clientName string) clientLabels {
	uid := clientUID()
	return clientLabels{
		project: project,
		resource: map[string]string{
			LabelProject:        project,
			LabelInstance:       instance,
			LabelInstanceConfig: instanceConfigUnknown,
			LabelClientHash:     clientHash(uid),
		},
		metric: map[string]string{
			LabelClientUID:  uid,
			LabelClientName: clientName,
			LabelDatabase:   database,
		},
	}
}

// clientUID is the official client's form: a random UUID, the process id
// and the host name, joined by "@".
func clientUID() string {
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	return uuid.NewString() + "@" + strconv.Itoa(os.Getpid()) + "@" + host
}

// clientHash is the official client's client_hash: the 10 most significant
// bits of the FNV-1 64-bit hash of the client's uid, as 6 hexadecimal
// digits. It keeps the number of monitored resources small.
func clientHash(uid string) string {
	if uid == "" {
		return "000000"
	}
	h := fnv.New64()
	h.Write([]byte(uid))
	return fmt.Sprintf("%06x", h.Sum64()>>(64-10))
}

// detectedLocation is the region Google Cloud's resource detector finds
// (once per process: it may ask the metadata server), else "global".
var detectedLocation = sync.OnceValue(func() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := gcp.NewDetector().Detect(ctx)
	if err != nil || res == nil {
		return defaultLocation
	}
	for _, kv := range res.Attributes() {
		if kv.Key == "cloud.region" && kv.Value.AsString() != "" {
			return kv.Value.AsString()
		}
	}
	return defaultLocation
})
