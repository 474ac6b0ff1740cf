//! Terraform front end on hcl-edit (a real HCL parser with byte spans): the
//! managed Redis resources and where their `maxmemory-policy` is written
//! (ElastiCache parameter groups, Azure `redis_configuration`, Memorystore
//! `redis_configs`, Redis Cloud `data_eviction`). Other Terraform is not read.

use crate::facts::redis::{GroupRef, InstanceDecl, InstanceKind, PolicySetting, Provider, Surface};
use crate::facts::{FileFacts, Problem};
use crate::source::Span;
use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, BlockLabel, Body};
use hcl_edit::Span as _;

/// How a resource type holds its policy.
enum Holder {
    /// `parameter { name = "maxmemory-policy" value = "…" }` blocks: a parameter group.
    ParameterBlocks,
    /// A cluster naming its parameter group in `parameter_group_name`.
    GroupUser,
    /// `block { attr = "…" }` (an empty block name: the attribute is on the resource).
    Attribute {
        block: &'static str,
        attr: &'static str,
    },
    /// `attr = { maxmemory-policy = "…" }`.
    ObjectKey { attr: &'static str },
}

/// Resource types read, their provider and where the policy sits.
const RESOURCES: &[(&str, Provider, Holder)] = &[
    (
        "aws_elasticache_parameter_group",
        Provider::ElastiCache,
        Holder::ParameterBlocks,
    ),
    (
        "aws_elasticache_replication_group",
        Provider::ElastiCache,
        Holder::GroupUser,
    ),
    (
        "aws_elasticache_cluster",
        Provider::ElastiCache,
        Holder::GroupUser,
    ),
    (
        "azurerm_redis_cache",
        Provider::Azure,
        Holder::Attribute {
            block: "redis_configuration",
            attr: "maxmemory_policy",
        },
    ),
    (
        "azurerm_redis_enterprise_database",
        Provider::Azure,
        Holder::Attribute {
            block: "",
            attr: "eviction_policy",
        },
    ),
    (
        "azurerm_managed_redis",
        Provider::Azure,
        Holder::Attribute {
            block: "default_database",
            attr: "eviction_policy",
        },
    ),
    (
        "google_redis_instance",
        Provider::Memorystore,
        Holder::ObjectKey {
            attr: "redis_configs",
        },
    ),
    (
        "google_redis_cluster",
        Provider::Memorystore,
        Holder::ObjectKey {
            attr: "redis_configs",
        },
    ),
    (
        "google_memorystore_instance",
        Provider::Memorystore,
        Holder::ObjectKey {
            attr: "engine_configs",
        },
    ),
    (
        "rediscloud_subscription_database",
        Provider::RedisCloud,
        Holder::Attribute {
            block: "",
            attr: "data_eviction",
        },
    ),
];

/// Attributes whose string value is another name the instance answers to.
const NAME_ATTRS: &[&str] = &["name", "replication_group_id", "cluster_id"];

pub fn parse(text: &str, facts: &mut FileFacts) {
    if let Some(p) = super::too_deep(text) {
        facts.problems.push(p);
        return;
    }
    let body = match hcl_edit::parser::parse_body(text) {
        Ok(b) => b,
        Err(e) => {
            let at = crate::source::clamp_to_char_boundary(text, e.location().offset());
            facts
                .problems
                .push(Problem::invalid(Span::new(at, at), "HCL", e.message()));
            return;
        }
    };
    for block in body.blocks().filter(|b| b.has_ident("resource")) {
        resource(text, block, facts);
    }
    for block in body.blocks().filter(|b| b.has_ident("module")) {
        module(text, block, facts);
    }
}

/// Words in a module `source` that say the module creates a Redis.
const MODULE_SOURCE_WORDS: &[&str] = &["elasticache", "redis", "valkey", "memorystore"];

/// Module inputs that carry the policy: the registry modules'
/// `parameters`/`parameter` lists (terraform-aws-modules/elasticache,
/// cloudposse/elasticache-redis), Memorystore's `redis_configs` map, and the
/// variable a team's own module exposes (`maxmemory_policy`).
const MODULE_PARAMETER_LISTS: &[&str] = &["parameters", "parameter"];
const MODULE_CONFIG_MAPS: &[&str] = &["redis_configs", "redis_configuration"];
const MODULE_POLICY_ATTRS: &[&str] = &["maxmemory_policy", "eviction_policy"];

/// A `module` call that creates a Redis (its `source` says so): an instance
/// named by the module label and its `name`/`replication_group_id` inputs,
/// with the policy from its inputs. What the module does with a missing input
/// is not read, so only a registry ElastiCache or Memorystore module counts as
/// managed (its default parameter group applies).
fn module(text: &str, block: &Block, facts: &mut FileFacts) {
    let [name] = block.labels.as_slice() else {
        return;
    };
    let body = &block.body;
    let source = string_attr(body, "source")
        .unwrap_or_default()
        .to_ascii_lowercase();
    if !MODULE_SOURCE_WORDS.iter().any(|w| source.contains(w)) {
        return;
    }
    let redis = &mut facts.redis;
    let idx = redis.instances.len();
    let mut inst = InstanceDecl::new(InstanceKind::Terraform, name.as_str(), label_span(name));
    inst.resource_type = Some("module".to_string());
    let registry = !source.starts_with('.');
    if registry && source.contains("elasticache") {
        inst.provider = Provider::ElastiCache;
    } else if registry && source.contains("memorystore") {
        inst.provider = Provider::Memorystore;
    }
    inst.aliases
        .extend(NAME_ATTRS.iter().filter_map(|k| string_attr(body, k)));
    if let Some(a) = body.get_attribute("parameter_group_name") {
        inst.group = Some(group_ref(&a.value));
    }
    for attr in MODULE_PARAMETER_LISTS {
        let Some(a) = body.get_attribute(attr) else {
            continue;
        };
        let Some(items) = a.value.as_array() else {
            // A variable or concat(): explicit, unknown here.
            redis.settings.push(computed(&a.value, idx));
            continue;
        };
        for item in items.iter().filter_map(Expression::as_object) {
            let field = |k: &str| {
                item.iter().find_map(|(key, v)| match key {
                    ObjectKey::Ident(i) if i.as_str() == k => Some(v.expr()),
                    _ => None,
                })
            };
            if field("name").and_then(Expression::as_str) == Some("maxmemory-policy") {
                if let Some(v) = field("value") {
                    redis.settings.push(setting(text, v, idx));
                }
            }
        }
    }
    for attr in MODULE_CONFIG_MAPS {
        if let Some(a) = body.get_attribute(attr) {
            match a.value.as_object() {
                Some(obj) => {
                    for (k, v) in obj.iter() {
                        let key = object_key(k);
                        if key == "maxmemory-policy" || key == "maxmemory_policy" {
                            redis.settings.push(setting(text, v.expr(), idx));
                        }
                    }
                }
                None => redis.settings.push(computed(&a.value, idx)),
            }
        }
    }
    for attr in MODULE_POLICY_ATTRS {
        if let Some(a) = body.get_attribute(attr) {
            redis.settings.push(setting(text, &a.value, idx));
        }
    }
    redis.instances.push(inst);
}

/// A policy that is set by an expression idemlint does not evaluate.
fn computed(e: &Expression, instance: usize) -> PolicySetting {
    PolicySetting {
        value: "computed".to_string(),
        span: span_of(e.span()),
        surface: Surface::Terraform,
        instance: Some(instance),
    }
}

fn span_of(r: Option<std::ops::Range<usize>>) -> Span {
    r.map(|r| Span::new(r.start, r.end)).unwrap_or_default()
}

fn label_span(label: &BlockLabel) -> Span {
    match label {
        BlockLabel::String(s) => strip_quotes(span_of(s.span())),
        BlockLabel::Ident(i) => span_of(i.span()),
    }
}

/// A string expression's span includes its quotes; the value is inside.
fn strip_quotes(s: Span) -> Span {
    if s.len() >= 2 {
        Span::new(s.start + 1, s.end - 1)
    } else {
        s
    }
}

fn string_attr(body: &Body, key: &str) -> Option<String> {
    body.get_attribute(key)
        .and_then(|a| a.value.as_str())
        .map(str::to_string)
}

/// A policy setting from an expression: a literal's value, or the
/// expression's text when it is computed (explicit, but unknown here).
fn setting(text: &str, e: &Expression, instance: usize) -> PolicySetting {
    let full = span_of(e.span());
    let (value, span) = match e.as_str() {
        Some(s) => (s.to_string(), strip_quotes(full)),
        None => (
            text.get(full.start..full.end).unwrap_or("").to_string(),
            full,
        ),
    };
    PolicySetting {
        value,
        span,
        surface: Surface::Terraform,
        instance: Some(instance),
    }
}

fn resource(text: &str, block: &Block, facts: &mut FileFacts) {
    let [ty, name] = block.labels.as_slice() else {
        return;
    };
    let Some((_, provider, holder)) = RESOURCES.iter().find(|(t, _, _)| *t == ty.as_str()) else {
        return;
    };
    let body = &block.body;
    // A cluster that is a member of a replication group runs with the
    // group's parameters: the group is the instance.
    if ty.as_str() == "aws_elasticache_cluster" && body.has_attribute("replication_group_id") {
        return;
    }
    if let Some(engine) = string_attr(body, "engine") {
        if engine.eq_ignore_ascii_case("memcached") {
            return;
        }
    }
    let redis = &mut facts.redis;
    let idx = redis.instances.len();
    let mut inst = InstanceDecl::new(InstanceKind::Terraform, name.as_str(), label_span(name));
    inst.resource_type = Some(ty.as_str().to_string());
    inst.provider = *provider;
    inst.aliases
        .extend(NAME_ATTRS.iter().filter_map(|k| string_attr(body, k)));
    match holder {
        Holder::ParameterBlocks => {
            inst.is_group = true;
            for p in body.get_blocks("parameter") {
                let Some(n) = p.body.get_attribute("name") else {
                    continue;
                };
                if n.value.as_str() != Some("maxmemory-policy") {
                    continue;
                }
                if let Some(v) = p.body.get_attribute("value") {
                    redis.settings.push(setting(text, &v.value, idx));
                }
            }
            // A `dynamic "parameter"` block may set it: explicit, unknown here.
            for d in body.get_blocks("dynamic") {
                if d.labels.first().map(|l| l.as_str()) == Some("parameter") {
                    redis.settings.push(PolicySetting {
                        value: "dynamic".to_string(),
                        span: span_of(d.span()),
                        surface: Surface::Terraform,
                        instance: Some(idx),
                    });
                }
            }
        }
        Holder::GroupUser => {
            if let Some(a) = body.get_attribute("parameter_group_name") {
                inst.group = Some(group_ref(&a.value));
            }
        }
        Holder::Attribute { block: b, attr } => {
            let found = if b.is_empty() {
                body.get_attribute(attr)
            } else {
                body.get_blocks(b)
                    .find_map(|blk| blk.body.get_attribute(attr))
            };
            if let Some(a) = found {
                redis.settings.push(setting(text, &a.value, idx));
            }
        }
        Holder::ObjectKey { attr } => {
            if let Some(a) = body.get_attribute(attr) {
                match a.value.as_object() {
                    Some(obj) => {
                        for (k, v) in obj.iter() {
                            let key = object_key(k);
                            if key == "maxmemory-policy" {
                                redis.settings.push(setting(text, v.expr(), idx));
                            }
                        }
                    }
                    // A variable or merge(): explicit, unknown here.
                    None => redis.settings.push(PolicySetting {
                        value: "computed".to_string(),
                        span: span_of(a.value.span()),
                        surface: Surface::Terraform,
                        instance: Some(idx),
                    }),
                }
            }
        }
    }
    redis.instances.push(inst);
}

/// `aws_elasticache_parameter_group.x.name` / `.id` → the resource `x`; a
/// literal → a group name; anything else (a variable) → unknown.
fn group_ref(e: &Expression) -> GroupRef {
    if let Some(s) = e.as_str() {
        return GroupRef::Name(s.to_string());
    }
    let Some(t) = e.as_traversal() else {
        return GroupRef::Unknown;
    };
    if t.expr.as_variable().map(|v| v.as_str()) != Some("aws_elasticache_parameter_group") {
        return GroupRef::Unknown;
    }
    match t.operators.first().map(|o| o.value()) {
        Some(TraversalOperator::GetAttr(id)) => GroupRef::Resource(id.as_str().to_string()),
        _ => GroupRef::Unknown,
    }
}

/// An object key as text: `maxmemory-policy = …` or `"maxmemory-policy" = …`.
fn object_key(k: &ObjectKey) -> String {
    match k {
        ObjectKey::Ident(i) => i.as_str().to_string(),
        ObjectKey::Expression(e) => e.as_str().unwrap_or_default().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(text: &str) -> FileFacts {
        let mut f = FileFacts::default();
        parse(text, &mut f);
        f
    }

    fn found(text: &str) -> Vec<(String, String)> {
        facts(text)
            .redis
            .settings
            .iter()
            .map(|s| (s.value.clone(), text[s.span.start..s.span.end].to_string()))
            .collect()
    }

    #[test]
    fn elasticache_parameter_block_value_span() {
        let text = r#"
resource "aws_elasticache_parameter_group" "idempotency" {
  name   = "idempotency-redis7"
  family = "redis7"

  parameter {
    name  = "maxmemory-policy"
    value = "allkeys-lru"
  }
}

resource "aws_elasticache_replication_group" "idempotency" {
  replication_group_id = "idempotency"
  parameter_group_name = aws_elasticache_parameter_group.idempotency.name
}
"#;
        assert_eq!(
            found(text),
            vec![("allkeys-lru".to_string(), "allkeys-lru".to_string())]
        );
        let f = facts(text);
        assert!(f.redis.instances[0].is_group);
        assert_eq!(
            f.redis.instances[1].group,
            Some(GroupRef::Resource("idempotency".into()))
        );
        let s = f.redis.instances[1].span;
        assert_eq!(&text[s.start..s.end], "idempotency");
    }

    #[test]
    fn azure_and_memorystore_and_redis_cloud_values() {
        let text = r#"
resource "azurerm_redis_cache" "dedup" {
  name = "dedup-cache"
  redis_configuration {
    maxmemory_policy = "volatile-lru"
  }
}
resource "google_redis_instance" "receipts" {
  redis_configs = {
    maxmemory-policy = "allkeys-lfu"
    "notify-keyspace-events" = "Ex"
  }
}
resource "rediscloud_subscription_database" "idem" {
  data_eviction = "volatile-ttl"
}
"#;
        assert_eq!(
            found(text),
            vec![
                ("volatile-lru".to_string(), "volatile-lru".to_string()),
                ("allkeys-lfu".to_string(), "allkeys-lfu".to_string()),
                ("volatile-ttl".to_string(), "volatile-ttl".to_string()),
            ]
        );
    }

    #[test]
    fn computed_policy_is_explicit_but_opaque() {
        let text =
            "resource \"google_redis_instance\" \"x\" {\n  redis_configs = var.redis_configs\n}\n";
        let f = facts(text);
        assert_eq!(f.redis.settings[0].value, "computed");
    }

    #[test]
    fn registry_and_own_module_calls_carry_their_policy() {
        let text = r#"
module "idem" {
  source = "terraform-aws-modules/elasticache/aws"
  parameters = [{ name = "maxmemory-policy", value = "allkeys-lru" }]
}
module "dedup" {
  source           = "../modules/redis"
  maxmemory_policy = var.policy
}
module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
  maxmemory_policy = "allkeys-lru"
}
"#;
        let f = facts(text);
        let names: Vec<(&str, Provider)> = f
            .redis
            .instances
            .iter()
            .map(|i| (i.name.as_str(), i.provider))
            .collect();
        assert_eq!(
            names,
            vec![
                ("idem", Provider::ElastiCache),
                ("dedup", Provider::SelfRun)
            ]
        );
        assert_eq!(
            found(text),
            vec![
                ("allkeys-lru".to_string(), "allkeys-lru".to_string()),
                ("var.policy".to_string(), "var.policy".to_string()),
            ]
        );
    }

    #[test]
    fn parameter_group_from_a_variable_is_unknown_not_default() {
        let text = "resource \"aws_elasticache_replication_group\" \"r\" {\n  parameter_group_name = var.pg\n}\nresource \"aws_elasticache_replication_group\" \"d\" {\n  parameter_group_name = \"default.redis7\"\n}\n";
        let f = facts(text);
        assert_eq!(f.redis.instances[0].group, Some(GroupRef::Unknown));
        assert_eq!(
            f.redis.instances[1].group,
            Some(GroupRef::Name("default.redis7".into()))
        );
    }

    #[test]
    fn replication_group_members_are_not_instances_of_their_own() {
        let text = "resource \"aws_elasticache_cluster\" \"replica\" {\n  replication_group_id = aws_elasticache_replication_group.idem.id\n}\n";
        assert!(facts(text).redis.instances.is_empty());
    }

    #[test]
    fn memcached_clusters_are_not_redis() {
        let text = "resource \"aws_elasticache_cluster\" \"idem\" {\n  engine = \"memcached\"\n}\n";
        assert!(facts(text).redis.instances.is_empty());
    }

    #[test]
    fn invalid_hcl_is_a_problem_and_deep_nesting_is_refused() {
        assert_eq!(facts("resource \"x\" {\n").problems.len(), 1);
        let deep = format!("a = {}", "[".repeat(10_000));
        assert_eq!(facts(&deep).problems.len(), 1);
    }
}
