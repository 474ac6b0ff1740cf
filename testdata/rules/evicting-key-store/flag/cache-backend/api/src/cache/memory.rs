use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct MemoryCache {
    entries: Mutex<HashMap<String, Vec<u8>>>,
}

impl MemoryCache {
    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        self.entries.lock().ok()?.get(key).cloned()
    }

    pub fn put(&self, key: &str, value: &[u8]) {
        if let Ok(mut e) = self.entries.lock() {
            e.insert(key.to_string(), value.to_vec());
        }
    }
}
