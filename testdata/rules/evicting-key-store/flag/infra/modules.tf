# Payments Redis clusters, built with the public registry modules.
module "idempotency_cache" {
  source  = "terraform-aws-modules/elasticache/aws"
  version = "1.2.0"

  replication_group_id = "payments-idempotency"
  engine_version       = "7.1"
  node_type            = "cache.r7g.large"
  num_cache_clusters   = 2

  create_parameter_group = true
  parameter_group_family = "redis7"
  parameters = [
    {
      name  = "maxmemory-policy"
      value = "allkeys-lru" # expect: evicting-key-store
    },
    {
      name  = "latency-tracking"
      value = "yes"
    }
  ]
}

module "webhook_dedup" {
  source  = "cloudposse/elasticache-redis/aws"
  version = "1.4.1"
  name    = "webhook-dedup"
  parameter = [
    { name = "maxmemory-policy", value = "volatile-lru" } # expect: evicting-key-store
  ]
}

# The storefront's page cache: eviction is what it is for.
module "page_cache" {
  source  = "cloudposse/elasticache-redis/aws"
  version = "1.4.1"
  name    = "page-cache"
  parameter = [
    { name = "maxmemory-policy", value = "allkeys-lru" }
  ]
}

module "payments_idempotency_eu" {
  source           = "../modules/payments-redis"
  name             = "payments-idempotency-eu"
  maxmemory_policy = "volatile-ttl" # expect: evicting-key-store
}
