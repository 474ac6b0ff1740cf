package goconfig

import "github.com/spf13/viper"

// ConfigureIngest sets the ingest worker's defaults: dedupe keys are kept
// longer than any redelivery, and a timeout is no retention.
func ConfigureIngest(v *viper.Viper) {
	v.SetDefault("ingest.dedupe.driver", "redis")
	v.SetDefault("ingest.dedupe.config.expiration", "1000h")
	v.SetDefault("ingest.dedupe.config.dialTimeout", "10s")
}
