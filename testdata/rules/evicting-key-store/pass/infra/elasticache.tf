resource "aws_elasticache_parameter_group" "idempotency" {
  name   = "idempotency-redis7"
  family = "redis7"

  # parameter {
  #   name  = "maxmemory-policy"
  #   value = "allkeys-lru"
  # }
  parameter {
    name  = "maxmemory-policy"
    value = "noeviction"
  }
}

resource "aws_elasticache_replication_group" "idempotency" {
  replication_group_id = "idempotency"
  description          = "Idempotency keys for the payments API"
  engine               = "redis"
  parameter_group_name = aws_elasticache_parameter_group.idempotency.name
}

# The parameter group is managed by the platform team's stack.
resource "aws_elasticache_replication_group" "receipts" {
  replication_group_id = "receipts"
  description          = "Webhook receipts"
  parameter_group_name = var.receipts_parameter_group
}

# Sessions may be evicted.
resource "aws_elasticache_parameter_group" "sessions" {
  name   = "sessions-redis7"
  family = "redis7"

  parameter {
    name  = "maxmemory-policy"
    value = "allkeys-lru"
  }
}

resource "aws_elasticache_replication_group" "sessions" {
  replication_group_id = "sessions"
  description          = "Session cache"
  parameter_group_name = aws_elasticache_parameter_group.sessions.name
}

resource "azurerm_redis_cache" "dedup" {
  name     = "payments-dedup"
  sku_name = "Standard"

  redis_configuration {
    maxmemory_policy = "noeviction"
  }
}

resource "google_redis_instance" "idem_keys" {
  name = "idem-keys"

  redis_configs = {
    maxmemory-policy = "noeviction"
  }
}

resource "rediscloud_subscription_database" "replay_guard" {
  name          = "replay-guard"
  data_eviction = "noeviction"
}
