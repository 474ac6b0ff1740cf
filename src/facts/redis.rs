//! Redis as files declare it: instances (a compose service, a Helm release,
//! a Terraform resource, code that configures the Redis it talks to), the
//! eviction policies set on them and where, and `include` lines. Every
//! surface that declares a Redis fills these; the model joins them.

use crate::source::Span;

/// Where a `maxmemory-policy` was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// A redis.conf / valkey.conf file.
    ConfFile,
    /// `redis-server --maxmemory-policy X` in a command, args or extraFlags.
    CommandLine,
    /// redis.conf text inside another file (Helm values, a ConfigMap).
    EmbeddedConf,
    /// A config key named `maxmemory-policy` in YAML/JSON (Helm values).
    ConfigKey,
    Terraform,
    CloudFormation,
    /// `CONFIG SET maxmemory-policy X` in code.
    Code,
}

impl Surface {
    pub fn describe(self) -> &'static str {
        match self {
            Surface::ConfFile => "redis.conf",
            Surface::CommandLine => "command line",
            Surface::EmbeddedConf => "embedded redis.conf",
            Surface::ConfigKey => "config key",
            Surface::Terraform => "Terraform",
            Surface::CloudFormation => "CloudFormation",
            Surface::Code => "`CONFIG SET` in code",
        }
    }
}

/// Who runs the Redis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    SelfRun,
    ElastiCache,
    Memorystore,
    Azure,
    RedisCloud,
}

impl Provider {
    /// The id used in `rules/redis.toml`.
    pub fn id(self) -> &'static str {
        match self {
            Provider::SelfRun => "self-run",
            Provider::ElastiCache => "elasticache",
            Provider::Memorystore => "memorystore",
            Provider::Azure => "azure",
            Provider::RedisCloud => "redis-cloud",
        }
    }
}

/// What declares a Redis instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstanceKind {
    ComposeService,
    /// A Helm values file (one release).
    HelmValues,
    /// A Kubernetes Deployment, StatefulSet, Pod, ...
    Workload,
    ConfigMap,
    ConfFile,
    Terraform,
    CloudFormation,
    /// Code that configures the Redis it talks to.
    Code,
}

impl InstanceKind {
    pub fn describe(self) -> &'static str {
        match self {
            InstanceKind::ComposeService => "compose service",
            InstanceKind::HelmValues => "Helm release",
            InstanceKind::Workload => "Kubernetes workload",
            InstanceKind::ConfigMap => "ConfigMap",
            InstanceKind::ConfFile => "config file",
            InstanceKind::Terraform => "Terraform resource",
            InstanceKind::CloudFormation => "CloudFormation resource",
            InstanceKind::Code => "code",
        }
    }
}

/// How a managed instance names the parameter group it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupRef {
    /// A resource in the same stack (`aws_elasticache_parameter_group.x.name`, `!Ref X`).
    Resource(String),
    /// A literal group name (`default.redis7`, or a group created elsewhere).
    Name(String),
    /// A variable or expression: some group, not readable here.
    Unknown,
}

/// A Redis instance (or a parameter group) declared in a file.
#[derive(Debug, Clone)]
pub struct InstanceDecl {
    pub kind: InstanceKind,
    /// What the file calls it: service, resource label, `metadata.name`, release.
    pub name: String,
    /// Where it is declared (its name token, or the file start).
    pub span: Span,
    /// Terraform resource type or CloudFormation `Type`.
    pub resource_type: Option<String>,
    pub provider: Provider,
    /// Other names it answers to: hostname, container name, `name` or
    /// `replication_group_id` attributes, `fullnameOverride`.
    pub aliases: Vec<String>,
    /// The parameter group it uses, when it is a managed cluster.
    pub group: Option<GroupRef>,
    /// It is a parameter group: its settings apply to the instances using it.
    pub is_group: bool,
    /// Host paths mounted into it (compose `volumes:`), to find its redis.conf.
    pub mounts: Vec<String>,
}

impl InstanceDecl {
    pub fn new(kind: InstanceKind, name: impl Into<String>, span: Span) -> Self {
        InstanceDecl {
            kind,
            name: name.into(),
            span,
            resource_type: None,
            provider: Provider::SelfRun,
            aliases: Vec::new(),
            group: None,
            is_group: false,
            mounts: Vec::new(),
        }
    }
}

/// A `maxmemory-policy` value with the span of the value itself.
#[derive(Debug, Clone)]
pub struct PolicySetting {
    /// As written (normalised by the model).
    pub value: String,
    pub span: Span,
    pub surface: Surface,
    /// Index into [`RedisFacts::instances`] of the same file, when known.
    pub instance: Option<usize>,
}

/// An `include` line: recorded, never followed.
#[derive(Debug, Clone)]
pub struct Include {
    pub path: String,
    pub span: Span,
}

/// Everything about Redis one file declares.
#[derive(Debug, Clone, Default)]
pub struct RedisFacts {
    pub instances: Vec<InstanceDecl>,
    pub settings: Vec<PolicySetting>,
    pub includes: Vec<Include>,
}

/// A Redis write of a key, from code (`SET key v EX n NX`, `set_ex`, ...).
#[derive(Debug, Clone)]
pub struct RedisKeyWrite {
    pub span: Span,
    /// The literal prefix of the key (`"idem:stripe:"` from `format!("idem:stripe:{}", id)`).
    pub key_prefix: Option<String>,
    /// The expiry set with the write, if any, and its span.
    pub ttl: Option<(crate::duration::Duration, Span)>,
    /// Written with `NX` (set only if absent): an atomic claim.
    pub nx: bool,
}

/// A dependency on a library of the catalogue.
#[derive(Debug, Clone)]
pub struct DedupDep {
    /// Index in `knowledge::redis().dedup_library`.
    pub library: usize,
    /// The package name as the manifest writes it.
    pub package: String,
    /// The name on its manifest line.
    pub span: Span,
}
