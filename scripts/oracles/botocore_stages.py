"""Shared by the botocore oracles: freeze botocore's clock and record the stages it computes."""
import botocore.auth


def freeze_clock(when):
    """Make every botocore signer sign at `when` (a timezone-aware datetime)."""
    botocore.auth.get_current_datetime = lambda: when


class Recorder:
    """Wraps a botocore signer class; `stages` receives canonical request, string to sign, signature."""

    def __init__(self, cls, *args, names=("canonical_request", "string_to_sign", "signature")):
        stages = self.stages = {}
        canonical_name, sts_name, signature_name = names

        class Recording(cls):
            def canonical_request(self, request):
                stages[canonical_name] = super().canonical_request(request)
                return stages[canonical_name]

            def string_to_sign(self, request, canonical_request):
                stages[sts_name] = super().string_to_sign(request, canonical_request)
                return stages[sts_name]

            def signature(self, string_to_sign, request):
                stages[signature_name] = super().signature(string_to_sign, request)
                return stages[signature_name]

        self.signer = Recording(*args)
