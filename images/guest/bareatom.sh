# The suite's tools and tests, for interactive shells in the guest.
PATH=$PATH:/usr/local/bin:/usr/lib/bareatom/tests/vm
export PATH
