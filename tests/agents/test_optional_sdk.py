"""``agenteval_nb.agents`` imports without the optional openai-agents SDK; using the adapter then
says how to install it."""

import subprocess
import sys
import textwrap


def test_agents_package_imports_without_the_sdk_and_the_adapter_names_the_extra():
    script = textwrap.dedent(
        """
        import sys
        sys.modules["agents"] = None  # as if the SDK were not installed
        import agenteval_nb.agents as agents
        assert agents.FunctionAgent
        try:
            agents.OpenAIAgentsSDKAgent
        except ImportError as exc:
            print(exc)
        else:
            raise SystemExit("the adapter imported without the SDK")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "pip install agenteval_nb[openai-agents]" in done.stdout
