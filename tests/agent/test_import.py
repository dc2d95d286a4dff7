import subprocess
import sys

HEAVY = ("fastapi", "sqlalchemy", "pydantic", "plotly", "starlette", "numpy", "app")


def test_import_agent_loads_no_server_or_heavy_modules():
    code = f"import sys, agent; agent.Monitor; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_agent_cli_help_works_without_importing_the_server():
    code = (
        "import sys; from app.cli import build_parser; build_parser(); "
        "print(','.join(m for m in ('fastapi','sqlalchemy','pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
