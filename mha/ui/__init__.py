"""Streamlit views: one module per stage (stages/), the strings table, session and URL handling."""
