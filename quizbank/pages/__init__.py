"""Authors' browser pages: thin views over the bank's services, rendered by the server."""
