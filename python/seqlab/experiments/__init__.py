"""seqlab.experiments: the course's experiments as library code with a command line each.

length_generalization: train short, test long, with every positional scheme."""
