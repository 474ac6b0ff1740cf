//! The HTML inventory in a real browser: headless Chromium loads the report
//! (with a small checking script added to a copy; the report itself has no
//! script), lays it out at a laptop's width, and the script writes what it
//! found into the DOM, which Chromium dumps. The test fails on an element
//! whose content overflows it, an element past the page's right edge, or an
//! SVG caption cut by its picture's edge; and on a window's source that is
//! not in the page in full. A second page, broken on purpose, shows the
//! check finds both faults.
//!
//! Without Chromium on PATH (`chromium` or `chromium-browser`) the test
//! says SKIPPED and passes; `.ci/run` installs it from Debian's packages.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHECK: &str = r#"<script>
(function () {
  var bad = [];
  var page = document.documentElement.clientWidth;
  document.querySelectorAll('body *').forEach(function (el) {
    if (el.id === 'layout-check') return;
    var cs = getComputedStyle(el);
    var what = el.tagName.toLowerCase() + ' "' + (el.textContent || '').trim().slice(0, 60) + '"';
    if (cs.display !== 'inline' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      bad.push('overflows (' + el.scrollWidth + ' > ' + el.clientWidth + '): ' + what);
    }
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > page + 1) {
      bad.push('past the page (' + Math.round(r.right) + ' > ' + page + '): ' + what);
    }
  });
  document.querySelectorAll('svg text').forEach(function (t) {
    var vb = t.ownerSVGElement.viewBox.baseVal;
    var b = t.getBBox();
    if (b.x < -0.5 || b.x + b.width > vb.width + 0.5) {
      bad.push('cut caption (' + Math.round(b.x) + '..' + Math.round(b.x + b.width) + ' of ' + vb.width + '): ' + t.textContent);
    }
  });
  var out = document.createElement('pre');
  out.id = 'layout-check';
  // The markers are put together here so the script's own text holds neither.
  out.textContent = 'LAYOUT' + '-FAULTS ' + bad.length + '\n' + bad.join('\n') + '\nLAYOUT' + '-END';
  document.body.appendChild(out);
})();
</script>"#;

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The faults the script found in `html`, laid out at 1024 px.
fn faults(browser: &Path, html: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("inventory.html");
    let checked = html.replace("</body>", &format!("{CHECK}</body>"));
    assert_ne!(checked, html, "no </body> in the report");
    std::fs::write(&page, checked).unwrap();
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        "--window-size=1024,900",
        "--dump-dom",
    ])
    .arg(format!(
        "--user-data-dir={}",
        dir.path().join("profile").display()
    ))
    .arg(format!("file://{}", page.display()))
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    // Chromium refuses to run as root without it.
    if std::env::var("USER").is_ok_and(|u| u == "root") || is_root() {
        cmd.arg("--no-sandbox");
    }
    let mut child = cmd.spawn().expect("start chromium");
    // The DOM is read as it comes (a pipe holds 64 KiB, the report more).
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut dom = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut dom);
        dom
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(25) {
            let _ = child.kill();
            panic!("chromium did not finish within 25 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = reader.join().unwrap();
    let start = dom
        .find("LAYOUT-FAULTS ")
        .unwrap_or_else(|| panic!("the check did not run; the DOM:\n{dom}"));
    let end = dom[start..].find("LAYOUT-END").unwrap() + start;
    dom[start..end]
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.replace("&gt;", ">").replace("&quot;", "\""))
        .collect()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn inventory(project: &str, format: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["inventory", "--isolated", "--format", format, project])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn the_html_inventory_lays_out_in_chromium_without_overflow_or_cut_captions() {
    let Some(browser) = chromium() else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {}: chromium is not installed (.ci/run installs it: apt-get install chromium)",
            file!()
        );
        return;
    };
    // The demo, and a project with several counterparties and long sources.
    for project in [
        "testdata/projects/demo",
        "testdata/rules/ttl-below-replay-horizon/flag",
    ] {
        let html = inventory(project, "html");
        let found = faults(&browser, &html);
        assert!(found.is_empty(), "{project}:\n{}", found.join("\n"));
        // Every window's source is in the page in full.
        let json: serde_json::Value = serde_json::from_str(&inventory(project, "json")).unwrap();
        for store in json["stores"].as_array().unwrap() {
            for w in store["counterparty"]["windows"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let source = w["source"].as_str().unwrap();
                let escaped = idemlint::inventory::html::escape(source);
                assert!(
                    html.contains(&format!(">{escaped}<")),
                    "{project}: the source `{source}` is not shown in full"
                );
            }
        }
    }
}

/// The check itself: a page with an overflowing cell and a caption past its
/// picture's edge is caught on both counts.
#[test]
fn the_browser_check_catches_an_overflow_and_a_cut_caption() {
    let Some(browser) = chromium() else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {}: chromium is not installed (.ci/run installs it: apt-get install chromium)",
            file!()
        );
        return;
    };
    let broken = format!(
        "<!DOCTYPE html><html><body><div style=\"width:120px;white-space:nowrap;overflow:hidden\">{}</div>\
         <svg width=\"200\" height=\"40\" viewBox=\"0 0 200 40\"><text x=\"150\" y=\"20\">a caption cut by the edge</text></svg></body></html>",
        "https://example.com/a/long/source/page/that/does/not/fit"
    );
    let found = faults(&browser, &broken);
    assert!(
        found.iter().any(|f| f.starts_with("overflows")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.starts_with("cut caption")),
        "{found:?}"
    );
}
