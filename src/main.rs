//! Entry point of the web app: installs the panic panel and mounts the root component.

fn main() {
    gpu_advisor::ui::start();
}
