// Line comments, block comments, and nested block comments.
/* a block comment */
print(1); // trailing line comment
/* outer /* nested */ still a comment */
print(2);
/*
  multi-line
  /* nested
     /* twice */
  */
  print(999);
*/
print(1 + /* inside an expression */ 2);
// print(4);
print("// not a comment");
print("/* not a comment either */");
/**/
/***/
print(5);
