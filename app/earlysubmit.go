package app

// EarlySubmitJS is a script for the page's head: a form submitted on the
// prerendered page before the app is up (Enter in the what-if page's rate
// field, the diagnosis page's interval) would reload the page and lose
// what the user typed. It stops that submission and makes it again once
// the page is mounted (window.__pplab.mounted, which the what-if and
// diagnosis pages set), on the mounted page's form of the same id, so
// the prediction or the diagnosis the user asked for is done (30 s at
// most). What was typed is kept by earlyform.go.
func EarlySubmitJS() string {
	return `<script>(function(){
var t0=Date.now(),pending=null,timer=0;
var up=function(){var s=window.__pplab;return !!(s&&s.mounted);};
document.addEventListener("submit",function(e){
 if(up()||!e.target||!e.target.id)return;
 e.preventDefault();pending=e.target.id;
 if(timer)return;
 timer=setInterval(function(){
  if(Date.now()-t0>30000){clearInterval(timer);return;}
  if(!up())return;
  clearInterval(timer);
  var f=document.getElementById(pending);
  if(f&&f.requestSubmit)f.requestSubmit();
 },100);
},true);
})();</script>`
}
