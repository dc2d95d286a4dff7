import subprocess
import sys

HEAVY = ("fastapi", "sqlalchemy", "pydantic", "plotly", "starlette", "numpy", "tpuwatch.server")


def test_import_tpuwatch_loads_no_server_or_heavy_modules():
    code = (
        f"import sys, tpuwatch; tpuwatch.Monitor; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_works_without_importing_the_server():
    code = (
        "import sys; from tpuwatch.cli import build_parser; build_parser(); "
        "print(','.join(m for m in ('fastapi','sqlalchemy','pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
