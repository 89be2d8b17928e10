//! One Yew component per file, each with its own BEM-named stylesheet in `styles/`.

pub mod catalog_filters;
pub mod catalog_table;
pub mod compare_view;
pub mod gpu_detail;
pub mod header;
pub mod url_notes;
