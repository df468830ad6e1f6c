"""Task tables, one module per env family."""
