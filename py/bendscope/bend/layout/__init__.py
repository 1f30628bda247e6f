"""The layout: the pure-Python simulation and the engine protocol, what the page's d3 kernel is
given, and the layered arrangement's job."""
