resource "aws_elasticache_parameter_group" "idempotency" {
  name   = "idempotency-redis7"
  family = "redis7"

  parameter {
    name  = "maxmemory-policy"
    value = "allkeys-lru" # expect: evicting-key-store
  }
}

resource "aws_elasticache_replication_group" "idempotency" {
  replication_group_id = "idempotency"
  description          = "Idempotency keys for the payments API"
  engine               = "redis"
  node_type            = "cache.r7g.large"
  parameter_group_name = aws_elasticache_parameter_group.idempotency.name
}

# No parameter group: runs with ElastiCache's default.
resource "aws_elasticache_replication_group" "receipts" { # expect: evicting-key-store
  replication_group_id = "receipts"
  description          = "Webhook receipts"
  engine               = "redis"
  node_type            = "cache.t4g.small"
}

# A cache for sessions: eviction is right here.
resource "aws_elasticache_parameter_group" "sessions" {
  name   = "sessions-redis7"
  family = "redis7"

  parameter {
    name  = "maxmemory-policy"
    value = "allkeys-lru"
  }
}
