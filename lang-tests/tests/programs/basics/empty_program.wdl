// A program with no statements prints nothing.
/* nothing here */
