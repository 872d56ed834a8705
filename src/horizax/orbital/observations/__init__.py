"""Observation functions."""
