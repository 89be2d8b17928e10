//! One Yew component per file, each with its own BEM-named stylesheet in `styles/`.

pub mod accuracy_view;
pub mod advisor_form;
pub mod after_start;
pub mod advisor_view;
pub mod best_summary;
pub mod catalog_filters;
pub mod disclosure;
pub mod catalog_table;
pub mod compare_job;
pub mod compare_view;
pub mod embed_dialog;
pub mod explain_details;
pub mod frontier_chart;
pub mod field_row;
pub mod gpu_detail;
pub mod header;
pub mod memory_bar;
pub mod model_presets;
pub mod owned_list;
pub mod pareto_chart;
pub mod recommend_list;
pub mod select_field;
pub mod share_bar;
pub mod sizing_table;
pub mod text_field;
pub mod url_notes;
