resource "azurerm_redis_cache" "dedup" {
  name                = "payments-dedup"
  location            = "westeurope"
  resource_group_name = "payments"
  capacity            = 1
  family              = "C"
  sku_name            = "Standard"

  redis_configuration {
    maxmemory_policy = "volatile-lru" # expect: evicting-key-store
  }
}

resource "google_redis_instance" "idem_keys" {
  name           = "idem-keys"
  memory_size_gb = 5

  redis_configs = {
    maxmemory-policy = "allkeys-lfu" # expect: evicting-key-store
  }
}

resource "rediscloud_subscription_database" "replay_guard" {
  name          = "replay-guard"
  data_eviction = "volatile-random" # expect: evicting-key-store
}
