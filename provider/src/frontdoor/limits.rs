//! The memory a jetsql process may use, from the process's own limits.
//!
//! A session's memory limit (its pool, and the bound of the size-checked
//! functions, [`super::strings`]) is the smallest of:
//!
//! - half the machine's memory (`MemTotal` in `/proc/meminfo`; 4 GiB
//!   where that cannot be read), the default when nothing else limits the
//!   process;
//! - half the address-space and data-segment limits (`ulimit -v`,
//!   `ulimit -d`: `Max address space` and `Max data size` in
//!   `/proc/self/limits`, soft limits);
//! - half the cgroup's memory limit (`memory.max` of cgroup v2, or
//!   `memory.limit_in_bytes` of cgroup v1's memory controller, the
//!   smallest along the path from the process's cgroup to the root).
//!
//! Half, because the limit bounds what operators and the size-checked
//! values hold, while the process needs room beyond it: its code and
//! libraries, thread stacks and allocator arenas (all address space under
//! `ulimit -v`), and the copies DataFusion makes around a value (a
//! function's arguments and its result live at once; an aggregate's
//! result is a copy of its state). A limit asked for (`--memory-limit`)
//! wins when it is smaller; a larger one is lowered to half the process's
//! own limit, so asking cannot bring back the abort the limit prevents.
//!
//! Everything is read from text files (no system calls beyond reading
//! them, no unsafe code); the parsers are pure functions over the texts.

use std::path::Path;

/// The default where the machine's memory cannot be read.
const FALLBACK: u64 = 4 << 30;

/// cgroup v1 writes "no limit" as a huge number (`PAGE_COUNTER_MAX` pages);
/// anything from here on is no limit.
const NO_LIMIT: u64 = 1 << 62;

/// What limits this process's memory, each `None` when nothing does (or
/// it could not be read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessLimits {
    /// The machine's memory, bytes (`MemTotal`).
    pub physical: Option<u64>,
    /// The soft limit on the address space (`RLIMIT_AS`, `ulimit -v`), bytes.
    pub address_space: Option<u64>,
    /// The soft limit on the data segment (`RLIMIT_DATA`, `ulimit -d`), bytes.
    pub data: Option<u64>,
    /// The cgroup's memory limit, bytes (the smallest on the way to the root).
    pub cgroup: Option<u64>,
}

impl ProcessLimits {
    /// The limits of this process, read from `/proc` and `/sys/fs/cgroup`.
    pub fn read() -> ProcessLimits {
        let text = |p: &str| std::fs::read_to_string(p).ok();
        let (address_space, data) = text("/proc/self/limits")
            .map(|t| parse_rlimits(&t))
            .unwrap_or_default();
        ProcessLimits {
            physical: text("/proc/meminfo").and_then(|t| parse_mem_total(&t)),
            address_space,
            data,
            cgroup: text("/proc/self/cgroup")
                .and_then(|t| cgroup_limit(Path::new("/sys/fs/cgroup"), &t)),
        }
    }

    /// Half the smallest of the process's own limits (address space, data
    /// segment, cgroup), or `None` when none is set: what a memory limit
    /// may be at most.
    pub fn cap(&self) -> Option<u64> {
        [self.address_space, self.data, self.cgroup]
            .into_iter()
            .flatten()
            .min()
            .map(|l| l / 2)
    }

    /// The default memory limit: half the machine's memory (4 GiB when
    /// unknown), lowered to [`ProcessLimits::cap`].
    pub fn default_limit(&self) -> u64 {
        let half = self.physical.map_or(FALLBACK, |m| m / 2);
        self.limit(Some(half))
    }

    /// The memory limit for `asked` (`--memory-limit`; `None`: the
    /// default): `asked` when it is within [`ProcessLimits::cap`], else
    /// the cap. Never below one byte.
    pub fn limit(&self, asked: Option<u64>) -> u64 {
        let Some(asked) = asked else {
            return self.default_limit();
        };
        self.cap().map_or(asked, |c| asked.min(c)).max(1)
    }
}

/// The limits of this process, read once ([`ProcessLimits::read`]).
fn process_limits() -> &'static ProcessLimits {
    static LIMITS: std::sync::OnceLock<ProcessLimits> = std::sync::OnceLock::new();
    LIMITS.get_or_init(ProcessLimits::read)
}

/// Bytes the process may still map before its address-space or data
/// limit (`ulimit -v`, `ulimit -d`) refuses an allocation, which would
/// abort it: the limit less what is mapped now (`VmSize`, `VmData` in
/// `/proc/self/status`). `None` when neither limit is set or the usage
/// cannot be read.
pub fn room_left() -> Option<u64> {
    let limits = process_limits();
    if limits.address_space.is_none() && limits.data.is_none() {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let (size, data) = parse_status_usage(&status);
    let room = |limit: Option<u64>, used: Option<u64>| Some(limit?.saturating_sub(used?));
    [room(limits.address_space, size), room(limits.data, data)]
        .into_iter()
        .flatten()
        .min()
}

/// `VmSize` and `VmData` of a `/proc/self/status` text, in bytes: what
/// the address-space and the data limits count.
pub fn parse_status_usage(status: &str) -> (Option<u64>, Option<u64>) {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(proc_size)
    };
    (field("VmSize:"), field("VmData:"))
}

/// Bytes of a `/proc` size such as `24683772 kB` (or a bare number of
/// bytes).
fn proc_size(text: &str) -> Option<u64> {
    let mut parts = text.split_whitespace();
    let n: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        None => Some(n),
        Some(u) if u.eq_ignore_ascii_case("kb") => n.checked_mul(1024),
        Some(_) => None,
    }
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
pub fn parse_mem_total(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(proc_size)
}

/// The soft limits `Max address space` and `Max data size` of a
/// `/proc/self/limits` text, in bytes (`None` for `unlimited` or a line
/// that is missing or unreadable).
pub fn parse_rlimits(limits: &str) -> (Option<u64>, Option<u64>) {
    let soft = |name: &str| {
        limits
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    (soft("Max address space"), soft("Max data size"))
}

/// The cgroup paths of a `/proc/self/cgroup` text: the unified (v2)
/// hierarchy's (`0::/path`) and cgroup v1 memory controller's
/// (`N:memory:/path`, or a list of controllers holding `memory`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CgroupPaths {
    /// The path in the unified hierarchy.
    pub unified: Option<String>,
    /// The path in cgroup v1's memory hierarchy.
    pub memory_v1: Option<String>,
}

/// The paths of a `/proc/self/cgroup` text ([`CgroupPaths`]).
pub fn parse_cgroup_paths(cgroup: &str) -> CgroupPaths {
    let mut out = CgroupPaths::default();
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if id == "0" && controllers.is_empty() {
            out.unified = Some(path.to_string());
        } else if controllers.split(',').any(|c| c == "memory") {
            out.memory_v1 = Some(path.to_string());
        }
    }
    out
}

/// A cgroup memory limit file's value: bytes, or `None` for `max` (v2),
/// a value that means no limit (v1's huge number) or text that is not a
/// number.
pub fn parse_cgroup_limit(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok().filter(|&n| n < NO_LIMIT)
}

/// The cgroup `path` and every cgroup above it up to the root, innermost
/// first, as relative paths (`"a/b"`, `"a"`, `""`). A path that leaves its
/// hierarchy (`..`, as a process outside its cgroup namespace sees it)
/// gives the root alone.
pub fn cgroup_ancestors(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == ".." || *p == ".") {
        return vec![String::new()];
    }
    (0..=parts.len())
        .rev()
        .map(|n| parts[..n].join("/"))
        .collect()
}

/// The smallest memory limit set on the cgroups of `cgroup` (a
/// `/proc/self/cgroup` text) and their ancestors, read under `root`
/// (`/sys/fs/cgroup`): `memory.max` in the unified hierarchy,
/// `memory/…/memory.limit_in_bytes` in cgroup v1. A cgroup directory
/// that is not there (the file system shows another namespace) is
/// skipped.
pub fn cgroup_limit(root: &Path, cgroup: &str) -> Option<u64> {
    let paths = parse_cgroup_paths(cgroup);
    let read = |dir: &Path, file: &str| {
        std::fs::read_to_string(dir.join(file))
            .ok()
            .and_then(|t| parse_cgroup_limit(&t))
    };
    let mut found: Vec<u64> = Vec::new();
    if let Some(p) = &paths.unified {
        for a in cgroup_ancestors(p) {
            found.extend(read(&root.join(&a), "memory.max"));
        }
    }
    if let Some(p) = &paths.memory_v1 {
        let memory = root.join("memory");
        for a in cgroup_ancestors(p) {
            found.extend(read(&memory.join(&a), "memory.limit_in_bytes"));
        }
    }
    found.into_iter().min()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: &str = "\
Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max file size             unlimited            unlimited            bytes     
Max data size             8589934592           unlimited            bytes     
Max stack size            8388608              unlimited            bytes     
Max core file size        0                    unlimited            bytes     
Max resident set          unlimited            unlimited            bytes     
Max address space         4096000000           unlimited            bytes     
Max file locks            unlimited            unlimited            locks     
";

    #[test]
    fn rlimits_are_the_soft_limits() {
        assert_eq!(
            parse_rlimits(LIMITS),
            (Some(4_096_000_000), Some(8_589_934_592))
        );
        let unlimited = LIMITS
            .replace("4096000000  ", "unlimited   ")
            .replace("8589934592", "unlimited ");
        assert_eq!(parse_rlimits(&unlimited), (None, None));
        assert_eq!(parse_rlimits(""), (None, None));
    }

    #[test]
    fn mem_total_in_bytes() {
        let meminfo = "MemTotal:       24683772 kB\nMemFree:        21000000 kB\n";
        assert_eq!(parse_mem_total(meminfo), Some(24_683_772 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: lots\n"), None);
    }

    #[test]
    fn cgroup_paths_of_both_versions() {
        let v2 = "0::/user.slice/user-1000.slice/session-2.scope\n";
        assert_eq!(
            parse_cgroup_paths(v2),
            CgroupPaths {
                unified: Some("/user.slice/user-1000.slice/session-2.scope".into()),
                memory_v1: None,
            }
        );
        let hybrid = "9:name=systemd:/\n4:memory:/process_api/b19c\n2:cpu,cpuacct:/\n0::/\n";
        assert_eq!(
            parse_cgroup_paths(hybrid),
            CgroupPaths {
                unified: Some("/".into()),
                memory_v1: Some("/process_api/b19c".into()),
            }
        );
        let listed = "5:cpuset,memory:/docker/abc\n";
        assert_eq!(
            parse_cgroup_paths(listed).memory_v1.as_deref(),
            Some("/docker/abc")
        );
        assert_eq!(parse_cgroup_paths("garbage\n"), CgroupPaths::default());
    }

    #[test]
    fn cgroup_limit_values() {
        assert_eq!(parse_cgroup_limit("max\n"), None);
        assert_eq!(parse_cgroup_limit("536870912\n"), Some(512 << 20));
        assert_eq!(parse_cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(parse_cgroup_limit(""), None);
    }

    #[test]
    fn ancestors_walk_up_to_the_root() {
        assert_eq!(cgroup_ancestors("/a/b"), vec!["a/b", "a", ""]);
        assert_eq!(cgroup_ancestors("/"), vec![""]);
        assert_eq!(cgroup_ancestors("/../../x"), vec![""]);
    }

    #[test]
    fn cgroup_limit_is_the_smallest_on_the_way_up() {
        let root = std::env::temp_dir().join(format!("jet-cgroup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/memory.max"), "max\n").unwrap();
        std::fs::write(root.join("a/memory.max"), "1073741824\n").unwrap();
        assert_eq!(cgroup_limit(&root, "0::/a/b\n"), Some(1 << 30));
        // a cgroup the mount does not show: its ancestors still count
        assert_eq!(cgroup_limit(&root, "0::/a/c/d\n"), Some(1 << 30));
        assert_eq!(cgroup_limit(&root, "0::/x\n"), None);
        std::fs::create_dir_all(root.join("memory/m")).unwrap();
        std::fs::write(root.join("memory/m/memory.limit_in_bytes"), "268435456\n").unwrap();
        assert_eq!(
            cgroup_limit(&root, "4:memory:/m\n0::/a/b\n"),
            Some(256 << 20)
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn usage_from_status() {
        let status = "Name:\tjetsql\nVmPeak:\t  3060 kB\nVmSize:\t    3060 kB\nVmRSS:\t1692 kB\nVmData:\t     360 kB\n";
        assert_eq!(
            parse_status_usage(status),
            (Some(3060 * 1024), Some(360 * 1024))
        );
        assert_eq!(parse_status_usage("Name:\tx\n"), (None, None));
    }

    #[test]
    fn the_limit_is_the_smallest_half() {
        let machine = ProcessLimits {
            physical: Some(16 << 30),
            ..ProcessLimits::default()
        };
        assert_eq!(machine.cap(), None);
        assert_eq!(machine.default_limit(), 8 << 30);
        assert_eq!(machine.limit(Some(12 << 30)), 12 << 30);
        let ulimited = ProcessLimits {
            address_space: Some(4_096_000_000),
            ..machine
        };
        assert_eq!(ulimited.default_limit(), 2_048_000_000);
        // the flag wins when smaller, and is lowered to the cap when larger
        assert_eq!(ulimited.limit(Some(1 << 30)), 1 << 30);
        assert_eq!(ulimited.limit(Some(3 << 30)), 2_048_000_000);
        assert_eq!(ulimited.limit(None), 2_048_000_000);
        let all = ProcessLimits {
            data: Some(3 << 30),
            cgroup: Some(1 << 30),
            ..ulimited
        };
        assert_eq!(all.default_limit(), 512 << 20);
        assert_eq!(ProcessLimits::default().default_limit(), FALLBACK);
    }
}
