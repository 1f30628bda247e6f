"""Think or retrieve: what a question asks for (``intent``) and the route it takes from the part
of the memory it is about (``router``)."""
