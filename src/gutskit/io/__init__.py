"""Input/output beside the core: the SQLAlchemy store of hand histories and the
matplotlib plots. Imports only ``gutskit.core``."""
