"""The LMS fixtures, for the attacks on the lms app (test_lms_*.py)."""

from tests.lms.conftest import make_client  # noqa: F401  (an API client with a token)
from tests.lms.lti_world import lti  # noqa: F401  (a registered platform and a granted quiz)
