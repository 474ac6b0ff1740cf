package goconfig

import "github.com/spf13/viper"

// ConfigureIngest sets the ingest worker's defaults. Its dedupe keys live
// ten minutes, while a consumer group rebalance redelivers events later.
func ConfigureIngest(v *viper.Viper) {
	v.SetDefault("ingest.dedupe.driver", "redis")
	v.SetDefault("ingest.dedupe.config.expiration", "10m") // expect: ttl-below-replay-horizon
}
