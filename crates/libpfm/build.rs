//! Gives the shared library libpfm4's SONAME, `libpfm.so.4`, so that a
//! program linked against it (or against libpfm4) asks the loader for the
//! same file.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpfm.so.4");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
