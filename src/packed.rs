//! Tables the web app loads after its first paint (the Chinese and Russian strings, the cards'
//! source links and notes): postcard-packed lists, installed once into a process-wide cell.

use serde::de::DeserializeOwned;
use std::sync::OnceLock;

/// Unpacks `bytes` into `cell` unless it is already set; false when the bytes are not a
/// non-empty list of `T`.
pub fn install<T: DeserializeOwned>(cell: &OnceLock<Vec<T>>, bytes: &[u8]) -> bool {
    match postcard::from_bytes::<Vec<T>>(bytes) {
        Ok(v) if !v.is_empty() => {
            let _ = cell.set(v);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::install;
    use std::sync::OnceLock;

    #[test]
    fn installs_a_packed_list_once_and_refuses_other_bytes() {
        let cell: OnceLock<Vec<String>> = OnceLock::new();
        assert!(!install(&cell, b"\xff\xff"));
        assert!(!install(&cell, &postcard::to_allocvec(&Vec::<String>::new()).unwrap_or_default()));
        assert!(install(&cell, &postcard::to_allocvec(&vec!["a".to_string()]).unwrap_or_default()));
        assert_eq!(cell.get().map(Vec::len), Some(1));
    }
}
