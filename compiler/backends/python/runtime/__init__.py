"""Source of the runtime package `cardc_runtime`, copied verbatim beside the generated rule packages."""
