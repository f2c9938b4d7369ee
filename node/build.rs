//! napi-build sets the linker flags a Node addon needs (on macOS, leaving Node's symbols to be
//! found at load time); on Linux it has nothing to add.
fn main() {
    napi_build::setup();
}
