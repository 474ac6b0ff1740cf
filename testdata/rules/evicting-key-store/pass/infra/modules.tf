module "idempotency_cache" {
  source  = "terraform-aws-modules/elasticache/aws"
  version = "1.2.0"

  replication_group_id = "payments-idempotency"
  engine_version       = "7.1"
  node_type            = "cache.r7g.large"

  create_parameter_group = true
  parameter_group_family = "redis7"
  parameters = [
    { name = "maxmemory-policy", value = "noeviction" },
  ]
}

module "payments_idempotency_eu" {
  source           = "../modules/payments-redis"
  name             = "payments-idempotency-eu"
  maxmemory_policy = "noeviction"
}

module "session_cache" {
  source = "cloudposse/elasticache-redis/aws"
  name   = "sessions"
  parameter = [
    { name = "maxmemory-policy", value = "allkeys-lru" }
  ]
}
